// The implementation's bug flags (`interleave run minos --bug NAME`): each mirrors a mutant
// of specs/minos (mutants.ts, the extraction's §6) that makes sense in code, and is named
// after it; TS-COLLISION and S-GAP are the extraction's two findings, run with the
// literal-paper behaviour (the default code has the spec's fixes). Controls are variants
// the spec shows benign: no run may catch them. Which run catches each: README.md.

export interface BugFlag {
  name: string;
  kind: 'safety' | 'control';
  description: string;
  /** Where in the paper (or the extraction's rebuilt figures) the step it breaks is. */
  breaks: string;
  /** The models it changes anything in (undefined: all). */
  models?: readonly string[];
  offload?: boolean;
}

export const BUGS: readonly BugFlag[] = [
  { name: 'M1', kind: 'safety', breaks: 'Fig. 2 l.19 (Step e: all ACKs)', description: 'the coordinator returns to the client after the first (consistency) ACK' },
  { name: 'M2', kind: 'safety', breaks: 'Fig. 2 l.39-40 (persist, then ACK)', description: 'a Synch follower ACKs before its persist completes', models: ['synch'] },
  { name: 'M3', kind: 'safety', breaks: 'Fig. 2 l.18 (Step d synchronous)', description: 'the Synch coordinator persists in the background', models: ['synch'] },
  { name: 'M4', kind: 'safety', breaks: 'Fig. 2 l.27/33 (Obsolete at the follower)', description: 'a follower installs an INV without the obsoleteness checks' },
  { name: 'M5', kind: 'safety', breaks: '[L116] (Obsolete compares volatileTS)', description: 'Obsolete() compares with glb_volatileTS instead of volatileTS' },
  { name: 'M6', kind: 'safety', breaks: 'Fig. 2 l.6/16 (handleObsolete)', description: 'the coordinator skips ConsistencySpin/PersistencySpin on the obsolete path' },
  { name: 'M7', kind: 'safety', breaks: 'Fig. 2 l.41-43 (release on VAL)', description: 'a follower releases RDLock right after installing, before the VAL' },
  { name: 'M8', kind: 'safety', breaks: '[L124] (SnatchRDLock)', description: 'no snatching: an older owner keeps RDLock' },
  { name: 'M9', kind: 'safety', breaks: '[L96] (only the owner releases)', description: 'any finishing write releases RDLock, owner or not' },
  { name: 'M10', kind: 'safety', breaks: 'Fig. 2 l.18 before l.22', description: 'the Synch coordinator persists after sending the VALs and returning', models: ['synch'] },
  { name: 'M11', kind: 'safety', breaks: 'Fig. 3 (iii) Step e/f', description: 'the REnf coordinator releases and VALs after the ACK_Cs (Event behaviour)', models: ['renf'] },
  { name: 'M12', kind: 'control', breaks: 'Fig. 3 (iii) Step e', description: 'the REnf coordinator returns only after the ACK_Ps (slower, not wrong)', models: ['renf'] },
  { name: 'M13', kind: 'safety', breaks: 'Fig. 3 (i) Step f', description: 'the Strict coordinator returns after the ACK_Cs', models: ['strict'] },
  { name: 'M14', kind: 'safety', breaks: 'Fig. 3 (ii)/(iv) l.39-40', description: 'a Strict/REnf follower sends ACK_P before its persist completes', models: ['strict', 'renf'] },
  { name: 'M15', kind: 'safety', breaks: 'Fig. 3 (viii) [ACK_P]sc', description: 'a Scope follower sends [ACK_P]sc without waiting for its background persists', models: ['scope'] },
  { name: 'M16', kind: 'safety', breaks: 'Fig. 3 (vii) [PERSIST]sc', description: "the Scope coordinator returns PERSIST without waiting for its own node's persists of the scope", models: ['scope'] },
  { name: 'M17', kind: 'safety', breaks: '[L104] (node-id tie-break)', description: 'timestamps compare versions only' },
  { name: 'M19', kind: 'safety', breaks: '[L142]/[L148] (glb = max)', description: 'glb_volatileTS / glb_durableTS updated by plain assignment' },
  { name: 'M20', kind: 'safety', breaks: 'Fig. 2 l.19-21 (glb update, then release)', description: 'the Synch coordinator releases RDLock before it updates glb_volatileTS / glb_durableTS', models: ['synch'] },
  { name: 'M21', kind: 'safety', breaks: '[L170] (atomic local read)', description: 'a read checks RDLock, then loads the value a step later' },
  { name: 'M22', kind: 'safety', breaks: 'Fig. 2 l.9-10 (recheck under WRLock)', description: 'the coordinator rechecks Obsolete outside WRLock: other threads run between the recheck and the install' },
  { name: 'M23', kind: 'safety', breaks: 'Fig. 2 l.10 (recheck under WRLock)', description: 'the coordinator drops the recheck under WRLock' },
  { name: 'M25', kind: 'safety', breaks: '[L249] (MINOS-O drain before release)', description: 'MINOS-O: RDLock released before the vFIFO drains', offload: true },
  { name: 'M24', kind: 'safety', breaks: '[L247] (MINOS-O dequeue recheck)', description: 'MINOS-O: the vFIFO dequeue installs without re-checking obsoleteness', offload: true },
  { name: 'M27', kind: 'safety', breaks: 'Fig. 3 (v) Step d', description: 'Event: background persists never scheduled (a liveness bug)', models: ['event'] },
  { name: 'TS-COLLISION', kind: 'safety', breaks: '[L102] GenTS (literal)', description: 'GenTS as the paper words it: volatileTS + 1, not atomic, so two client-writes at one node can share a TS' },
  { name: 'S-GAP', kind: 'safety', breaks: 'Fig. 3 (vii)/(viii) [PERSIST]sc (literal)', description: 'the paper\'s PERSIST: waits only for the background persists of the scope writes a node applied', models: ['scope'] },
];

export function bugByName(name: string): BugFlag | undefined {
  const n = name.trim().toUpperCase();
  return BUGS.find((b) => b.name.toUpperCase() === n);
}
