# Sourced by the CLI tests (run_cli_tests.sh, run_plan_tests.sh): the MPI launcher, MPIEXEC
# (default: mpiexec), and MPIEXEC_FLAGS, the flags this harness adds (default for Open MPI:
# "--allow-run-as-root --oversubscribe", and for Open MPI 4 no wait before killing a failed
# job's ranks; none for others).
# shellcheck shell=bash
mpiexec=${MPIEXEC:-mpiexec}
if [[ -z ${MPIEXEC_FLAGS+x} ]]; then
  mpiexec_version=$("$mpiexec" --version 2>&1)
  if grep -q "Open MPI\|OpenRTE" <<<"$mpiexec_version"; then
    MPIEXEC_FLAGS="--allow-run-as-root --oversubscribe"
    # Open MPI 4 waits 1 s between SIGTERM and SIGKILL after a rank exits non-zero
    # (tests/CMakeLists.txt says more).
    if grep -qE "\(Open MPI\) [1-4]\.|OpenRTE" <<<"$mpiexec_version"; then
      MPIEXEC_FLAGS+=" --mca odls_base_sigkill_timeout 0"
    fi
  else
    MPIEXEC_FLAGS=""
  fi
fi
