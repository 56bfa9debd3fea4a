// The implementation's bug flags (`interleave run fusee --bug NAME`): each mirrors a safety
// mutant of specs/fusee (index.ts, the extraction's §5.2) that makes sense in code, and is
// named after it. Controls are variants the spec shows benign: no run may catch them.
// Which run catches each is measured in README.md.

export interface BugFlag {
  name: string;
  kind: 'safety' | 'control';
  /** What the code does differently. */
  description: string;
  /** Where in the paper the step it breaks is. */
  breaks: string;
}

export const BUGS: readonly BugFlag[] = [
  { name: 'M1', kind: 'safety', breaks: 'Alg. 2 l.17 (Rule 3) [L231]', description: 'drop Rule 3: a split makes every writer LOSE' },
  { name: 'M2', kind: 'safety', breaks: 'Alg. 2 l.12-16 [L233]', description: 'no primary re-read before Rule 3' },
  { name: 'M3', kind: 'safety', breaks: 'Alg. 2 l.8 (strict majority)', description: 'Rule 2 with a non-strict majority, 2*count(v_new) >= m' },
  { name: 'M4', kind: 'safety', breaks: 'Alg. 1 l.2 (READ reads the primary)', description: 'readers read a random replica of the key' },
  { name: "M4'", kind: 'safety', breaks: 'Alg. 4 l.4-6 (all alive backups equal)', description: 'with the primary failed, a reader returns one backup without the equality check' },
  { name: 'M5', kind: 'safety', breaks: 'Alg. 1 l.14-15 (fix-up before the primary)', description: 'a Rule-2/3 winner CASes the primary before its fix-up' },
  { name: 'M6', kind: 'safety', breaks: 'Alg. 1 l.16-22 (losers wait)', description: 'losers return without waiting for the primary to change' },
  { name: 'M7', kind: 'safety', breaks: '§4.5 [L276] (losers reset the used bit)', description: 'losers return with the used bit still set' },
  { name: 'M8', kind: 'safety', breaks: 'Alg. 3 l.7 (commit the chosen log)', description: 'the master does not commit the log of the value it chose' },
  { name: 'M9', kind: 'safety', breaks: 'Fig. 9, A.4.2 [L806] (log before the primary)', description: 'the winner commits its log after the primary CAS' },
  { name: 'M10', kind: 'safety', breaks: '[L276], A.4.2 (log after the fix-up)', description: 'the winner commits its log before the fix-up' },
  { name: 'M11', kind: 'safety', breaks: 'Alg. 3 l.23 (v_p = v_old)', description: 'recovery CASes the primary to v_new whatever it holds' },
  { name: 'M12', kind: 'safety', breaks: 'A.4.1 [L794-798] (fencing)', description: 'a decided winner is not fenced: its verbs carry the newest epoch it knows' },
  { name: 'M13', kind: 'safety', breaks: 'Alg. 4 l.37-38 (retry)', description: 'a writer told v_RPC = v_old returns instead of retrying' },
  { name: 'M15', kind: 'safety', breaks: '§5.4 [L321-323] (mixed crashes)', description: 'a client recovery is not restarted when a memory-node episode begins during it' },
  { name: 'M16', kind: 'safety', breaks: 'Alg. 3 l.18 (redo with the logged v_new)', description: 'recovery redoes the write with a freshly allocated value' },
  { name: 'M17', kind: 'safety', breaks: '§5.3 [L317] (redo incomplete entries)', description: 'recovery reclaims an entry whose old value is incomplete instead of redoing it' },
  { name: 'M18', kind: 'safety', breaks: 'Alg. 1 l.9 (change_list_value)', description: 'omit change_list_value' },
  { name: 'M19', kind: 'safety', breaks: 'Alg. 1 l.14 (fix-up)', description: 'a Rule-2/3 winner skips the fix-up' },
  { name: 'M20', kind: 'control', breaks: 'Alg. 2 l.17 (min)', description: 'Rule 3 picks the maximal value' },
  { name: 'M21', kind: 'control', breaks: 'Alg. 2 l.10', description: 'drop the v_new-not-in-v_list test' },
  { name: 'M22', kind: 'control', breaks: 'Alg. 2 l.2-8 (Len counts backups)', description: 'count the primary in Len(v_list)' },
];

/** Accepted spellings: the spec's names, and M4p for M4' (no quote to escape in a shell). */
export function bugByName(name: string): BugFlag | undefined {
  const n = name === 'M4p' ? "M4'" : name;
  return BUGS.find((b) => b.name === n);
}
