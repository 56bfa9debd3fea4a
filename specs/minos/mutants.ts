// The extraction's §6 catalogue (M1-M28: safety mutants and the controls M6', M12), each at
// the config that exposes it with the property expected to catch it, and the findings
// (variants of the protocol as the paper words it). The names are typed
// (specs/kit/variants.ts): the steps test `mut.M5`, so a misspelled variant does not compile.

import type { FindingDef, MutantDef } from '../../checkers/explore/types.ts';
import { variants } from '../kit/variants.ts';

export const VARIANTS = variants('minos', [
  'M1', 'M2', 'M3', 'M4', 'M5', 'M6', "M6'", "M6''", 'M7', 'M8', 'M9', 'M10', 'M11', 'M12', 'M13', 'M14',
  'M15', 'M16', 'M17', 'M18', 'M19', 'M20', 'M21', 'M22', 'M23', 'M24', 'M25', 'M26', 'M27', 'M28',
  'S-GAP', 'TS-COLLISION', 'RENF-REPLICA', 'T2b-literal', 'T2c-literal', 'T3a-literal', 'T3b-literal',
]);
export type Variant = (typeof VARIANTS.names)[number];

/** The findings that add Table I's worded forms as properties of their own. */
/** A finding whose variant name is checked against the list at compile time. */
const finding = (def: FindingDef & { variant: Variant }): FindingDef => def;

export const LITERALS = ['T2b-literal', 'T2c-literal', 'T3a-literal', 'T3b-literal'] as const satisfies readonly Variant[];

export const mutants: MutantDef[] = [
  VARIANTS.mutant({ name: 'M1', description: 'coordinator returns after the first consistency ACK', breaks: '§III-B Line 19 (Step e) [L142]', kind: 'safety', config: 'B-synch', expect: 'I10' }),
  VARIANTS.mutant({ name: 'M2', description: 'Synch follower sends ACK before persisting (Line 40 before 39)', breaks: '§III-B Lines 39-40 [L146]', kind: 'safety', config: 'A-synch', expect: 'D-ack' }),
  VARIANTS.mutant({ name: 'M3', description: 'Synch coordinator persists in the background (Step d as in Event)', breaks: '§III-B Line 18 [L140]', kind: 'safety', config: 'A-synch', expect: 'D-ack' }),
  VARIANTS.mutant({ name: 'M4', description: 'follower installs a lower-TS INV (no Obsolete check at Lines 27/33)', breaks: '§III-B Lines 27, 33 [L144]-[L146]', kind: 'safety', config: 'B2-synch', expect: 'I2' }),
  VARIANTS.mutant({ name: 'M5', description: 'Obsolete compares with glb_volatileTS instead of volatileTS', breaks: '§III-A Obsolete [L116]', kind: 'safety', config: 'B2-synch', expect: 'I2' }),
  VARIANTS.mutant({ name: 'M6', description: 'coordinator skips handleObsolete on the obsolete path (Lines 6/16 return at once)', breaks: '§III-A ConsistencySpin [L110]', kind: 'safety', config: 'B-event', expect: 'I10' }),
  VARIANTS.mutant({ name: "M6'", description: 'follower skips ConsistencySpin on the obsolete path (as Hermes does)', breaks: '§III-B Line 28 [L144]', kind: 'control', config: 'B2-strict' }),
  // M6'' keeps every durability predicate (README, "Disagreements"): only Table I 3a catches it.
  VARIANTS.mutant({ name: "M6''", description: 'Synch/Strict/REnf follower skips PersistencySpin', breaks: '§III-B Line 25 (Step h) [L158]', kind: 'safety', config: 'B2-strict', expect: 'T3a' }),
  VARIANTS.mutant({ name: 'M7', description: 'follower releases RDLock right after installing, before the VAL', breaks: '§III-B Lines 41-43 [L148]', kind: 'safety', config: 'B2-synch', expect: 'I6' }),
  VARIANTS.mutant({ name: 'M8', description: 'no snatching: an older owner keeps RDLock', breaks: '§III-B Snatch RDLock (ii) [L124]', kind: 'safety', config: 'B2-synch', expect: 'I6' }),
  VARIANTS.mutant({ name: 'M9', description: 'RDLock released without the owner check', breaks: '§III-A "only T2 can release" [L96]', kind: 'safety', config: 'B2-synch', expect: 'I6' }),
  VARIANTS.mutant({ name: 'M10', description: 'Synch coordinator persists after validation (Line 18 after Line 22)', breaks: '§III-B Line 18 [L140]', kind: 'safety', config: 'A-synch', expect: 'D-ack' }),
  VARIANTS.mutant({ name: 'M11', description: 'REnf coordinator releases and sends VAL after the ACK_Cs only', breaks: '§III-C REnf Step e [L160]', kind: 'safety', config: 'A-renf', expect: 'I7' }),
  VARIANTS.mutant({ name: 'M12', description: 'REnf coordinator waits for the ACK_Ps before returning to the client', breaks: '§III-C REnf Step e [L160] (performance only)', kind: 'control', config: 'B2-renf' }),
  VARIANTS.mutant({ name: 'M13', description: 'Strict returns to the client after the ACK_Cs', breaks: '§III-C Strict Step f [L156]', kind: 'safety', config: 'A-strict', expect: 'D-ack' }),
  VARIANTS.mutant({ name: 'M14', description: 'Strict/REnf follower sends ACK_P before its persist completes', breaks: '§III-C Strict follower [L158]', kind: 'safety', config: 'A-strict', expect: 'D-ack' }),
  VARIANTS.mutant({ name: 'M15', description: 'Scope follower sends [ACK_P]sc without waiting for its background persists', breaks: '§III-C Scope [L168]', kind: 'safety', config: 'D-scope', expect: 'D-scope' }),
  VARIANTS.mutant({ name: 'M16', description: "Scope coordinator ignores its own background persists on [PERSIST]sc", breaks: '§III-C Scope [L168]', kind: 'safety', config: 'D-scope', expect: 'D-scope' }),
  VARIANTS.mutant({ name: 'M17', description: 'timestamps compared by version only (no node-id tie-break)', breaks: '§III-A timestamp order [L104]', kind: 'safety', config: 'B2-synch', expect: 'I2' }),
  VARIANTS.mutant({ name: 'M18', description: 'GenTS is volatileTS+1, not atomic: two client threads on one node collide', breaks: '§III-A "TS_WR is unique" [L102]', kind: 'safety', config: 'E-synch', expect: 'I1' }),
  VARIANTS.mutant({ name: 'M19', description: 'glb timestamps updated by plain assignment instead of max', breaks: '§III-A glb updates [L102]', kind: 'safety', config: 'B2-synch', expect: 'I2' }),
  VARIANTS.mutant({ name: 'M20', description: 'RDLock released before the glb update', breaks: '§III-B Lines 19-21 [L142]', kind: 'safety', config: 'A-synch', expect: 'I6' }),
  VARIANTS.mutant({ name: 'M21', description: 'read checks RDLock, then loads the value in a later step', breaks: '§III-D reads [L172]', kind: 'safety', config: 'B-synch', expect: 'D-read' }),
  VARIANTS.mutant({ name: 'M22', description: 'no WRLock: recheck (Line 10) and install (Lines 11-12) are separate steps', breaks: '§III-B Lines 9-13 [L126]', kind: 'safety', config: 'B2-synch', expect: 'I11' }),
  VARIANTS.mutant({ name: 'M23', description: 'coordinator drops the Line-10 recheck', breaks: '§III-B Line 10 [L126]', kind: 'safety', config: 'B2-synch', expect: 'I2' }),
  VARIANTS.mutant({ name: 'M24', description: 'MINOS-O: vFIFO dequeue without the obsoleteness check', breaks: '§V-B.4 vFIFO [L247]', kind: 'safety', config: 'F2-synch', expect: 'I2' }),
  VARIANTS.mutant({ name: 'M25', description: 'MINOS-O: RDLock released before the vFIFO drains', breaks: '§V-B.4 [L249]', kind: 'safety', config: 'F-synch', expect: 'I6' }),
  VARIANTS.mutant({ name: 'M26', description: 'MINOS-O Synch: ACK before the dFIFO enqueue', breaks: '§V-C [L257]', kind: 'safety', config: 'F-synch', expect: 'D-ack' }),
  VARIANTS.mutant({ name: 'M27', description: 'Event: the background persist is never scheduled', breaks: '§II Event "eventually persisted" [L61]', kind: 'safety', config: 'A-event', expect: 'Eventually-DurableAll', breaksClass: 'liveness' }),
  VARIANTS.mutant({ name: 'M28', description: 'ACKs counted by number rather than by sender set, with duplicated ACKs', breaks: 'Table I 4c sender sets [L312]', kind: 'safety', config: 'B-synch-dup', expect: 'I10' }),
];

export const findings: FindingDef[] = [
  finding({
    name: 'S-GAP',
    description: 'faithful Scope: [PERSIST]sc returns while a scope write cut short as obsolete is not durable anywhere',
    variant: 'S-GAP',
    config: 'D-scope',
    expect: 'D-scope',
  }),
  finding({
    name: 'TS-COLLISION',
    description: 'GenTS as written (volatileTS + 1): two concurrent client-writes at one node get the same TS_WR',
    variant: 'TS-COLLISION',
    config: 'E-synch',
    expect: 'I1',
  }),
  finding({
    name: 'RENF-REPLICA',
    description: 'REnf as written: the coordinator releases RDLock before its own background persist, so a read may return a value missing from the coordinator NVM (D-read per replica)',
    variant: 'RENF-REPLICA',
    config: 'A-renf',
    expect: 'D-read',
  }),
  finding({ name: 'T2b-literal', description: 'Table I 2b as worded', variant: 'T2b-literal', config: 'B2-synch', expect: 'T2b-literal' }),
  finding({ name: 'T2c-literal', description: 'Table I 2c as worded', variant: 'T2c-literal', config: 'B2-synch', expect: 'T2c-literal' }),
  finding({ name: 'T3a-literal', description: 'Table I 3a as worded, under Strict', variant: 'T3a-literal', config: 'A-strict', expect: 'T3a-literal' }),
  finding({ name: 'T3b-literal', description: 'Table I 3b as worded', variant: 'T3b-literal', config: 'B2-synch', expect: 'T3b-literal' }),
];
