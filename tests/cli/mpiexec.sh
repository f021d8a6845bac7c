# Sourced by the CLI tests (run_cli_tests.sh, run_plan_tests.sh): the MPI launcher, MPIEXEC
# (default: mpiexec), and MPIEXEC_FLAGS, the flags this harness adds (default for Open MPI:
# "--allow-run-as-root --oversubscribe"; none for others).
# shellcheck shell=bash
mpiexec=${MPIEXEC:-mpiexec}
if [[ -z ${MPIEXEC_FLAGS+x} ]]; then
  if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    MPIEXEC_FLAGS="--allow-run-as-root --oversubscribe"
  else
    MPIEXEC_FLAGS=""
  fi
fi
