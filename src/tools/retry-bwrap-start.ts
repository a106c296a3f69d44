/**
 * How many times a bubblewrap start is tried when a read-only bind loses its race with a rename.
 * A rename takes microseconds and bwrap's bind a few: each retry that meets another one is
 * bad luck again, so a handful covers an editor's save many times over. Sixteen, not eight: under
 * load, a start preempted between its bind and its remount lost eight in a row to the suite's
 * rename loop (once in a full run); a lost try costs a few milliseconds.
 */
export const BWRAP_START_TRIES = 16;

/**
 * The first words of the command bubblewrap runs under `retryBwrapStart`: its own stderr back
 * (bwrap's went to a file) and the wrapper's descriptors closed. Only there, always with it.
 */
export const RESTORE_STDERR = 'exec 2>&8 8>&- 9>&-; ';

/**
 * A shell snippet (POSIX sh, for dash as for bash) that starts `bwrap` with `args` (shell words,
 * quoted already, the command last; its command line must begin with `RESTORE_STDERR`; they
 * become the snippet's positional parameters, so `"$@"` among them is the caller's) and tries
 * again when the start lost a race with a rename: a protected file bound read-only on its own
 * (`.plaited/config.ts`, `.git/config`, `.npmrc`: its folder stays writable) that an editor saves
 * by writing a copy and renaming it over the file, between bwrap's bind and its read-only
 * remount, fails the start ("Can't bind mount … Invalid argument", "Unable to find … in mount
 * table", "Can't find source path"). A start that failed binds nothing, runs nothing, and is
 * tried again; no retry runs a command with fewer walls.
 *
 * Whether the command ran is bwrap's own word (`--json-status-fd` writes `exit-code` only once
 * the command was started), so a command that exits 1 after printing bwrap's words is never
 * run twice for it. bwrap's stderr goes to an unlinked temporary file (nothing is left behind, also
 * when the shell is killed) and is copied to the real stderr after; the command gets the real one
 * back (`RESTORE_STDERR`, fd 8). Descriptors 6 to 9 are the snippet's: a caller's inherited
 * ones stay below. Without a temporary folder, or with a bubblewrap older than
 * `--json-status-fd` (0.4), it starts bwrap once, as before.
 */
export function retryBwrapStart(bwrap: string, args: string): string {
  // The words once, as the positional parameters: each start names them as "$@". Written out at
  // every start, a 50 KB argument made the script three times as long, past Linux's 128 KiB for one argument.
  const start = `${bwrap} --json-status-fd 9 "$@"`;
  return `set -- ${args}
_pl_n=1
while :; do
_pl_f=$(mktemp "\${TMPDIR:-/tmp}/plaited-bwrap.XXXXXX" 2>/dev/null) || exec ${start} 8>&2 9>/dev/null
exec 6<"$_pl_f" 7>"$_pl_f"; rm -f "$_pl_f"
${start} 8>&2 2>&7 9>&7 6<&- 7>&-
_pl_rc=$?
exec 7>&-
_pl_ran=; _pl_path=; _pl_said=; _pl_old=
while IFS= read -r _pl_l || [ -n "$_pl_l" ]; do
case $_pl_l in
*'"exit-code"'*) _pl_ran=1 ;;
"bwrap: Unknown option --json-status-fd"*) _pl_old=1 ;;
'{'*) ;;
*) _pl_said="$_pl_said$_pl_l
"
case $_pl_l in
"bwrap: Can't bind mount "*" on /newroot"*) _pl_path=\${_pl_l##*" on /newroot"}; _pl_path=\${_pl_path%%: *} ;;
"bwrap: Can't find source path "*) _pl_path=\${_pl_l#"bwrap: Can't find source path "}; _pl_path=\${_pl_path%%: *} ;;
esac ;;
esac
done <&6
exec 6<&-
if [ -n "$_pl_old" ]; then exec ${bwrap} "$@" 8>&2 9>/dev/null; fi
if [ -z "$_pl_ran" ] && [ -n "$_pl_path" ] && [ "$_pl_n" -lt ${BWRAP_START_TRIES} ]; then _pl_n=$((_pl_n + 1)); continue; fi
printf '%s' "$_pl_said" >&2
if [ -z "$_pl_ran" ] && [ -n "$_pl_path" ]; then printf '%s\\n' "plaited-agent: the sandbox could not start: $_pl_path was replaced or removed while bubblewrap bound it read-only, in each of $_pl_n tries (an editor saving it by a rename, a tool rewriting it in a loop); run the command again once it is saved" >&2; fi
exit $_pl_rc
done`;
}
