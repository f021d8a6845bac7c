#!/usr/bin/env bash
# Makes `apt-get source` work from the machine's own apt sources: for every enabled `deb`
# entry (deb822 *.sources and one-line sources.list / *.list alike) it writes a `deb-src`
# twin with the same URIs, suites, components and keyring (Signed-By) and the entry's other
# options, so that a company mirror, proxy or snapshot keeps being used; then runs
# `apt-get update`. Entries whose deb-src is already configured elsewhere are skipped.
#
#   scripts/apt-deb-src.sh           write (if changed) and update
#   scripts/apt-deb-src.sh --print   print the twin file it would write; change nothing
#
# Idempotent: the file is rewritten only when its content changes, and apt-get update runs
# only then or while no Sources index has been downloaded yet. If apt-get update fails with
# the new file, the previous state is restored and the script fails.
#
# Env:
#   APT_DEB_SRC_ROOT  a directory standing for / (tests): sources are read from its
#                     etc/apt/sources.list and etc/apt/sources.list.d/, the twin is written
#                     there, and apt-get update is skipped               (unset: apt's own)
#   APT_DEB_SRC_FILE  the twin file    (<sources.list.d>/redist-deb-src.sources)
set -euo pipefail

print_only=0
case "${1:-}" in
  --print) print_only=1 ;;
  "") ;;
  *)
    echo "usage: $0 [--print]" >&2
    exit 2
    ;;
esac

if [ -n "${APT_DEB_SRC_ROOT:-}" ]; then
  root=${APT_DEB_SRC_ROOT%/}
  list=$root/etc/apt/sources.list
  parts=$root/etc/apt/sources.list.d/
  lists=""
else
  root=""
  # Where this apt reads its sources (Dir::Etc may be configured elsewhere).
  eval "$(apt-config shell list Dir::Etc::sourcelist/f parts Dir::Etc::sourceparts/d \
    lists Dir::State::lists/d)"
fi
out=${APT_DEB_SRC_FILE:-${parts%/}/redist-deb-src.sources}

# What apt reads: sources.list, then sources.list.d/*.list and *.sources (other names, such
# as *.disabled or *.save, apt ignores). Our own twin file is no input.
inputs=()
[ -f "$list" ] && inputs+=("$list")
for f in "${parts%/}"/*.list "${parts%/}"/*.sources; do
  [ -f "$f" ] && [ "$f" != "$out" ] && inputs+=("$f")
done
if [ ${#inputs[@]} -eq 0 ]; then
  echo "apt-deb-src: no apt sources found (looked at $list and ${parts%/}/*.{list,sources})" >&2
  exit 1
fi

# twins FILE...: the deb822 text of the deb-src twins of the deb entries of FILE... (files
# ending in .sources are deb822, all others one-line). A twin is left out when every
# (URI, suite, component) of its entry already has a deb-src entry, or a twin before it.
twins() {
  awk '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    function norm_uri(u) { sub(/\/+$/, "", u); return u }
    # "signed-by" -> "Signed-By" (deb822 field names are case-insensitive anyway).
    function field_name(k,   n, i, p, s) {
      n = split(k, p, "-")
      s = ""
      for (i = 1; i <= n; ++i)
        s = s (i > 1 ? "-" : "") toupper(substr(p[i], 1, 1)) substr(p[i], 2)
      return s
    }
    # Records one entry: its types, URIs, suites, components (space-separated), the option
    # lines to copy into a twin, and where it came from.
    function entry(types, uris, suites, comps, extra, where,   t, nt, k, deb) {
      if (uris ~ /(^| )cdrom:/) return
      nt = split(types, t, " ")
      deb = 0
      for (k = 1; k <= nt; ++k) {
        if (t[k] == "deb-src") mark(uris, suites, comps, covered)
        if (t[k] == "deb") deb = 1
      }
      if (!deb) return
      ++n
      e_uris[n] = uris; e_suites[n] = suites; e_comps[n] = comps
      e_extra[n] = extra; e_where[n] = where
    }
    # Marks (or, with check, tests) every (URI, suite, component) of an entry in set.
    function triples(uris, suites, comps, set, check,   u, s, c, nu, ns, nc, i, j, k, key) {
      nu = split(uris, u, " "); ns = split(suites, s, " "); nc = split(comps, c, " ")
      if (nc == 0) { nc = 1; c[1] = "" }  # a flat repository ("./"): no components
      for (i = 1; i <= nu; ++i)
        for (j = 1; j <= ns; ++j)
          for (k = 1; k <= nc; ++k) {
            key = norm_uri(u[i]) SUBSEP s[j] SUBSEP c[k]
            if (check && !(key in set)) return 0
            if (!check) set[key] = 1
          }
      return 1
    }
    function mark(uris, suites, comps, set) { triples(uris, suites, comps, set, 0) }
    function all_in(uris, suites, comps, set) { return triples(uris, suites, comps, set, 1) }

    # --- deb822 ---------------------------------------------------------------------------
    function stanza_end() {
      if (have && tolower(f["enabled"]) != "no")
        entry(f["types"], f["uris"], f["suites"], f["components"], extra,
              FILENAME " (entry " stanza ")")
      have = 0; key = ""; copy = 0; extra = ""
      for (k in f) delete f[k]
    }
    FNR == 1 { if (prev != "" && prev ~ /\.sources$/) stanza_end(); prev = FILENAME; stanza = 0 }
    FILENAME ~ /\.sources$/ {
      if ($0 ~ /^#/) next
      if ($0 ~ /^[ \t]*$/) { stanza_end(); next }
      if ($0 ~ /^[ \t]/) {  # continuation of the last field (a Signed-By key block, say)
        if (copy) extra = extra "\n" $0
        if (key != "") f[key] = f[key] " " trim($0)
        next
      }
      if (!have) { have = 1; ++stanza }
      i = index($0, ":")
      if (i == 0) { key = ""; copy = 0; next }
      name = trim(substr($0, 1, i - 1)); key = tolower(name)
      f[key] = trim(substr($0, i + 1))
      # Everything else the entry says (keyring, Trusted, Check-Valid-Until, ...) is
      # copied; Architectures, Languages and Targets are about binary indexes.
      copy = key !~ /^(types|uris|suites|components|enabled|architectures|languages|targets)$/
      if (copy) extra = extra (extra == "" ? "" : "\n") $0
      next
    }

    # --- one-line -------------------------------------------------------------------------
    {
      line = $0
      sub(/#.*/, "", line)  # apt drops everything from a # on
      nw = split(line, w, /[ \t]+/)
      k = 1
      if (w[k] == "") ++k
      if (k > nw) next
      type = w[k++]
      if (w[k] ~ /^cdrom:/) next  # a disc has no source index (and spaces in its URI)
      extra = ""
      if (substr(w[k], 1, 1) == "[") {  # [ option=value ... ]
        opts = ""
        while (k <= nw) {
          opts = opts " " w[k]
          if (w[k++] ~ /\]$/) break
        }
        gsub(/[\[\]]/, " ", opts)
        no = split(opts, o, " ")
        for (j = 1; j <= no; ++j) {
          eq = index(o[j], "=")
          if (eq == 0) continue
          okey = substr(o[j], 1, eq - 1); oval = substr(o[j], eq + 1)
          if (okey ~ /^(arch|lang|target)([+-])?$/) continue
          gsub(/,/, " ", oval)
          extra = extra (extra == "" ? "" : "\n") field_name(okey) ": " oval
        }
      }
      if (k + 1 > nw) next  # no URI and suite: not an entry
      uri = w[k++]; suite = w[k++]; comps = ""
      for (; k <= nw; ++k) if (w[k] != "") comps = comps (comps == "" ? "" : " ") w[k]
      entry(type, uri, suite, comps, extra, FILENAME ":" FNR)
    }

    END {
      if (prev ~ /\.sources$/) stanza_end()
      for (i = 1; i <= n; ++i) {
        if (all_in(e_uris[i], e_suites[i], e_comps[i], covered)) {
          print "apt-deb-src: deb-src already configured for " e_where[i] > "/dev/stderr"
          continue
        }
        if (all_in(e_uris[i], e_suites[i], e_comps[i], twinned)) {
          print "apt-deb-src: " e_where[i] " repeats an entry twinned above" > "/dev/stderr"
          continue
        }
        mark(e_uris[i], e_suites[i], e_comps[i], twinned)
        printf "%s# deb-src twin of %s\n", (printed++ ? "\n" : ""), e_where[i]
        print "Types: deb-src"
        print "URIs: " e_uris[i]
        print "Suites: " e_suites[i]
        if (e_comps[i] != "") print "Components: " e_comps[i]
        if (e_extra[i] != "") print e_extra[i]
      }
    }
  ' "$@"
}

body=$(twins "${inputs[@]}")
text=""
if [ -n "$body" ]; then
  text="# Written by redist's scripts/apt-deb-src.sh: deb-src twins of this machine's deb
# entries (same URIs, suites, components and keyring), for apt-get source. Rerun the script
# after changing the deb entries; delete this file to undo.

$body"
fi

if [ "$print_only" -eq 1 ]; then
  [ -n "$text" ] && printf '%s\n' "$text"
  exit 0
fi

if [ "$(id -u)" -eq 0 ] || [ -w "$(dirname "$out")" ]; then
  sudo=()
else
  sudo=(sudo)
fi

# Sources indexes already downloaded? (A fresh container may have none even with deb-src.)
have_sources_index() {
  [ -n "$lists" ] && compgen -G "${lists%/}/*_Sources*" >/dev/null
}

old=""
[ -f "$out" ] && old=$(cat "$out")
changed=0
if [ "$text" = "$old" ]; then
  if [ -n "$text" ]; then
    echo "apt-deb-src: $out is up to date"
  else
    echo "apt-deb-src: every deb entry has its deb-src already; nothing to write"
  fi
elif [ -z "$text" ]; then
  # The system lists deb-src itself now: our twins would only duplicate them.
  echo "apt-deb-src: every deb entry has its deb-src already; removing $out"
  "${sudo[@]}" rm -f "$out"
  changed=1
else
  echo "apt-deb-src: writing $out:"
  printf '%s\n' "$text" | sed 's/^/    /'
  printf '%s\n' "$text" | "${sudo[@]}" tee "$out" >/dev/null
  "${sudo[@]}" chmod 644 "$out"
  changed=1
fi

if [ -n "$root" ]; then
  echo "apt-deb-src: APT_DEB_SRC_ROOT=$root: not running apt-get update"
  exit 0
fi
if [ "$changed" -eq 0 ] && { [ -z "$text" ] || have_sources_index; }; then
  exit 0
fi
echo "apt-deb-src: apt-get update"
if ! "${sudo[@]}" apt-get update; then
  # Leave apt as it was: a failing apt-get update breaks every later install.
  echo "apt-deb-src: apt-get update failed with $out; restoring the previous state" >&2
  if [ -n "$old" ]; then
    printf '%s\n' "$old" | "${sudo[@]}" tee "$out" >/dev/null
  else
    "${sudo[@]}" rm -f "$out"
  fi
  "${sudo[@]}" apt-get update >/dev/null 2>&1 || true
  exit 1
fi
