// MINOS (HPCA 2024): Linearizable consistency under five persistency models, MINOS-B and
// the MINOS-O offload, with a full-system crash and recovery from the NVM logs.
// Extraction: ../shared/protocols/minos-ddp.md; paper: ../shared/papers/minos.txt.

import type { ConfigDef, FindingDef, Machine, MutantDef, SpecDef } from '../../checkers/explore/types.ts';
import { observer } from './history.ts';
import { createMachine, setup, type MinosAction } from './machine.ts';
import { LITERALS, properties } from './properties.ts';
import { minosTrace } from './trace.ts';
import { NODE, encode, initialState, type ClientDef, type MinosConfig, type Persistency, type State } from './state.ts';

export type { MinosConfig } from './state.ts';

const MODELS: Persistency[] = ['Synch', 'Strict', 'REnf', 'Event', 'Scope'];
const W = (key = 0, sc = 0) => ({ f: 'write' as const, key, sc });
const R = (key = 0) => ({ f: 'read' as const, key });

/** §7.1 shapes. */
const SHAPES: Record<string, { nodes: number; clients: ClientDef[]; about: string }> = {
  A: { nodes: 2, clients: [{ node: 0, ops: [W()] }, { node: 1, ops: [R()] }], about: '2 nodes, a write at A, a concurrent read at B' },
  B: {
    nodes: 3,
    clients: [{ node: 0, ops: [W()] }, { node: 1, ops: [W()] }, { node: 2, ops: [R()] }],
    about: '3 nodes, concurrent writes at A and B (same version, node-id tie-break), a read at C',
  },
  B2: {
    nodes: 2,
    clients: [{ node: 0, ops: [W()] }, { node: 1, ops: [W(), R()] }],
    about: '2 nodes, concurrent writes at A and B (same version, node-id tie-break), then a read at B',
  },
  C: {
    nodes: 3,
    clients: [{ node: 0, ops: [W()] }, { node: 1, ops: [W()] }, { node: 2, ops: [W(), R()] }],
    about: '3 nodes, a write at each node (snatch chains), then a read at C',
  },
  G: {
    nodes: 3,
    clients: [{ node: 0, ops: [W(), R()] }, { node: 2, ops: [W()] }],
    about: '3 nodes, A writes then reads, C writes concurrently',
  },
  E: {
    nodes: 2,
    clients: [{ node: 0, ops: [W()] }, { node: 0, ops: [W()] }, { node: 1, ops: [R()] }],
    about: '2 nodes, two concurrent client-writes at A, a read at B',
  },
};

const lower = (m: Persistency) => m.toLowerCase();
const recoveryFor = (m: Persistency): MinosConfig['recovery'] => (m === 'REnf' ? 'system' : 'replica');

function make(shape: string, model: Persistency, crash: boolean, extra: Partial<MinosConfig> = {}): MinosConfig {
  const s = SHAPES[shape];
  return { model, nodes: s.nodes, keys: 1, clients: s.clients, crash, recovery: recoveryFor(model), ...extra };
}

const configs: ConfigDef<MinosConfig>[] = [];
for (const m of MODELS) {
  configs.push({ name: `A-${lower(m)}`, description: `<Lin, ${m}>: ${SHAPES.A.about}; crash anywhere`, config: make('A', m, true), tier: 'default' });
  configs.push({ name: `B-${lower(m)}`, description: `<Lin, ${m}>: ${SHAPES.B.about}; no crash`, config: make('B', m, false), tier: m === 'Synch' ? 'default' : 'full' });
  configs.push({ name: `B2-${lower(m)}`, description: `<Lin, ${m}>: ${SHAPES.B2.about}; crash anywhere`, config: make('B2', m, true), tier: 'default' });
  configs.push({ name: `F-${lower(m)}`, description: `MINOS-O <Lin, ${m}>: ${SHAPES.A.about}; crash anywhere`, config: make('A', m, true, { offload: true }), tier: 'default' });
  configs.push({ name: `B-${lower(m)}-crash`, description: `<Lin, ${m}>: ${SHAPES.B.about}; crash anywhere`, config: make('B', m, true), tier: 'full' });
  configs.push({ name: `C-${lower(m)}`, description: `<Lin, ${m}>: ${SHAPES.C.about}; no crash`, config: make('C', m, false), tier: 'full' });
  configs.push({ name: `F2-${lower(m)}`, description: `MINOS-O <Lin, ${m}>: ${SHAPES.B2.about}; crash anywhere`, config: make('B2', m, true, { offload: true }), tier: m === 'Synch' ? 'default' : 'full' });
  configs.push({ name: `FB-${lower(m)}`, description: `MINOS-O <Lin, ${m}>: ${SHAPES.B.about}; no crash`, config: make('B', m, false, { offload: true }), tier: 'full' });
}
configs.push({
  name: 'D-scope',
  description: '<Lin, Scope>, 2 nodes: A writes x in scope sc1 then issues [PERSIST]sc1; B writes x concurrently; crash anywhere',
  config: { model: 'Scope', nodes: 2, keys: 1, clients: [{ node: 0, ops: [W(0, 1), { f: 'persist', sc: 1 }] }, { node: 1, ops: [W()] }], crash: true, recovery: 'replica' },
  tier: 'default',
});
configs.push({
  name: 'D2-scope',
  description: '<Lin, Scope>, 2 nodes, keys x and y: A writes x and y in sc1 then [PERSIST]sc1; B writes x; crash anywhere',
  config: { model: 'Scope', nodes: 2, keys: 2, clients: [{ node: 0, ops: [W(0, 1), W(1, 1), { f: 'persist', sc: 1 }] }, { node: 1, ops: [W()] }], crash: true, recovery: 'replica' },
  tier: 'full',
});
configs.push({ name: 'G-renf', description: `<Lin, REnf>: ${SHAPES.G.about}; no crash`, config: make('G', 'REnf', false), tier: 'full' });
configs.push({ name: 'E-synch', description: `<Lin, Synch>: ${SHAPES.E.about}`, config: make('E', 'Synch', false), tier: 'default' });
configs.push({
  name: 'B-synch-dup',
  description: `<Lin, Synch>: ${SHAPES.B.about}; the network may duplicate each ACK once`,
  config: make('B', 'Synch', false, { duplicate: true }),
  tier: 'full',
});

const mutants: MutantDef[] = [
  { name: 'M1', description: 'coordinator returns after the first consistency ACK', breaks: '§III-B Line 19 (Step e) [L142]', kind: 'safety', config: 'B-synch', expect: 'I10' },
  { name: 'M2', description: 'Synch follower sends ACK before persisting (Line 40 before 39)', breaks: '§III-B Lines 39-40 [L146]', kind: 'safety', config: 'A-synch', expect: 'D-ack' },
  { name: 'M3', description: 'Synch coordinator persists in the background (Step d as in Event)', breaks: '§III-B Line 18 [L140]', kind: 'safety', config: 'A-synch', expect: 'D-ack' },
  { name: 'M4', description: 'follower installs a lower-TS INV (no Obsolete check at Lines 27/33)', breaks: '§III-B Lines 27, 33 [L144]-[L146]', kind: 'safety', config: 'B2-synch', expect: 'I2' },
  { name: 'M5', description: 'Obsolete compares with glb_volatileTS instead of volatileTS', breaks: '§III-A Obsolete [L116]', kind: 'safety', config: 'B2-synch', expect: 'I2' },
  { name: 'M6', description: 'coordinator skips handleObsolete on the obsolete path (Lines 6/16 return at once)', breaks: '§III-A ConsistencySpin [L110]', kind: 'safety', config: 'B-event', expect: 'I10' },
  { name: "M6'", description: 'follower skips ConsistencySpin on the obsolete path (as Hermes does)', breaks: '§III-B Line 28 [L144]', kind: 'control', config: 'B2-strict' },
  // M6'' keeps every durability predicate (README, "Disagreements"): only Table I 3a catches it.
  { name: "M6''", description: 'Synch/Strict/REnf follower skips PersistencySpin', breaks: '§III-B Line 25 (Step h) [L158]', kind: 'safety', config: 'B2-strict', expect: 'T3a' },
  { name: 'M7', description: 'follower releases RDLock right after installing, before the VAL', breaks: '§III-B Lines 41-43 [L148]', kind: 'safety', config: 'B2-synch', expect: 'I6' },
  { name: 'M8', description: 'no snatching: an older owner keeps RDLock', breaks: '§III-B Snatch RDLock (ii) [L124]', kind: 'safety', config: 'B2-synch', expect: 'I6' },
  { name: 'M9', description: 'RDLock released without the owner check', breaks: '§III-A "only T2 can release" [L96]', kind: 'safety', config: 'B2-synch', expect: 'I6' },
  { name: 'M10', description: 'Synch coordinator persists after validation (Line 18 after Line 22)', breaks: '§III-B Line 18 [L140]', kind: 'safety', config: 'A-synch', expect: 'D-ack' },
  { name: 'M11', description: 'REnf coordinator releases and sends VAL after the ACK_Cs only', breaks: '§III-C REnf Step e [L160]', kind: 'safety', config: 'A-renf', expect: 'I7' },
  { name: 'M12', description: 'REnf coordinator waits for the ACK_Ps before returning to the client', breaks: '§III-C REnf Step e [L160] (performance only)', kind: 'control', config: 'B2-renf' },
  { name: 'M13', description: 'Strict returns to the client after the ACK_Cs', breaks: '§III-C Strict Step f [L156]', kind: 'safety', config: 'A-strict', expect: 'D-ack' },
  { name: 'M14', description: 'Strict/REnf follower sends ACK_P before its persist completes', breaks: '§III-C Strict follower [L158]', kind: 'safety', config: 'A-strict', expect: 'D-ack' },
  { name: 'M15', description: 'Scope follower sends [ACK_P]sc without waiting for its background persists', breaks: '§III-C Scope [L168]', kind: 'safety', config: 'D-scope', expect: 'D-scope' },
  { name: 'M16', description: "Scope coordinator ignores its own background persists on [PERSIST]sc", breaks: '§III-C Scope [L168]', kind: 'safety', config: 'D-scope', expect: 'D-scope' },
  { name: 'M17', description: 'timestamps compared by version only (no node-id tie-break)', breaks: '§III-A timestamp order [L104]', kind: 'safety', config: 'B2-synch', expect: 'I2' },
  { name: 'M18', description: 'GenTS is volatileTS+1, not atomic: two client threads on one node collide', breaks: '§III-A "TS_WR is unique" [L102]', kind: 'safety', config: 'E-synch', expect: 'I1' },
  { name: 'M19', description: 'glb timestamps updated by plain assignment instead of max', breaks: '§III-A glb updates [L102]', kind: 'safety', config: 'B2-synch', expect: 'I2' },
  { name: 'M20', description: 'RDLock released before the glb update', breaks: '§III-B Lines 19-21 [L142]', kind: 'safety', config: 'A-synch', expect: 'I6' },
  { name: 'M21', description: 'read checks RDLock, then loads the value in a later step', breaks: '§III-D reads [L172]', kind: 'safety', config: 'B-synch', expect: 'D-read' },
  { name: 'M22', description: 'no WRLock: recheck (Line 10) and install (Lines 11-12) are separate steps', breaks: '§III-B Lines 9-13 [L126]', kind: 'safety', config: 'B2-synch', expect: 'I11' },
  { name: 'M23', description: 'coordinator drops the Line-10 recheck', breaks: '§III-B Line 10 [L126]', kind: 'safety', config: 'B2-synch', expect: 'I2' },
  { name: 'M24', description: 'MINOS-O: vFIFO dequeue without the obsoleteness check', breaks: '§V-B.4 vFIFO [L247]', kind: 'safety', config: 'F2-synch', expect: 'I2' },
  { name: 'M25', description: 'MINOS-O: RDLock released before the vFIFO drains', breaks: '§V-B.4 [L249]', kind: 'safety', config: 'F-synch', expect: 'I6' },
  { name: 'M26', description: 'MINOS-O Synch: ACK before the dFIFO enqueue', breaks: '§V-C [L257]', kind: 'safety', config: 'F-synch', expect: 'D-ack' },
  { name: 'M27', description: 'Event: the background persist is never scheduled', breaks: '§II Event "eventually persisted" [L61]', kind: 'safety', config: 'A-event', expect: 'Eventually-DurableAll', breaksClass: 'liveness' },
  { name: 'M28', description: 'ACKs counted by number rather than by sender set, with duplicated ACKs', breaks: 'Table I 4c sender sets [L312]', kind: 'safety', config: 'B-synch-dup', expect: 'I10' },
];

const findings: FindingDef[] = [
  {
    name: 'S-GAP',
    description: 'faithful Scope: [PERSIST]sc returns while a scope write cut short as obsolete is not durable anywhere',
    variant: 'S-GAP',
    config: 'D-scope',
    expect: 'D-scope',
  },
  {
    name: 'TS-COLLISION',
    description: 'GenTS as written (volatileTS + 1): two concurrent client-writes at one node get the same TS_WR',
    variant: 'TS-COLLISION',
    config: 'E-synch',
    expect: 'I1',
  },
  {
    name: 'RENF-REPLICA',
    description: 'REnf as written: the coordinator releases RDLock before its own background persist, so a read may return a value missing from the coordinator NVM (D-read per replica)',
    variant: 'RENF-REPLICA',
    config: 'A-renf',
    expect: 'D-read',
  },
  { name: 'T2b-literal', description: 'Table I 2b as worded', variant: 'T2b-literal', config: 'B2-synch', expect: 'T2b-literal' },
  { name: 'T2c-literal', description: 'Table I 2c as worded', variant: 'T2c-literal', config: 'B2-synch', expect: 'T2c-literal' },
  { name: 'T3a-literal', description: 'Table I 3a as worded, under Strict', variant: 'T3a-literal', config: 'A-strict', expect: 'T3a-literal' },
  { name: 'T3b-literal', description: 'Table I 3b as worded', variant: 'T3b-literal', config: 'B2-synch', expect: 'T3b-literal' },
];

export function build(config: MinosConfig, variant?: string): Machine<State, MinosAction> {
  const known = variant === undefined || mutants.some((m) => m.name === variant) || findings.some((f) => f.variant === variant);
  if (!known) throw new Error(`minos: unknown variant ${variant}`);
  const su = setup(config, variant);
  const m = createMachine(su);
  const isLiteral = (LITERALS as readonly string[]).includes(variant ?? '');
  return {
    internal: ['g'],
    init: () => [initialState(config, su.writes.length, su.scopes)],
    actions: m.actions,
    next: m.next,
    invariants: properties(su, m, isLiteral || variant === 'RENF-REPLICA' ? variant : undefined),
    // Deadlock: every client finished (after a crash: every recovered read done) and no thread left.
    mayStop: (s) =>
      s.crashed ? s.pr.length === config.nodes * config.keys * 3 : s.co.every((t) => t === null) && s.fo.length === 0 && s.cl.every((i, c) => i === config.clients[c].ops.length),
    // Livelock: a cycle in which no client operation completes.
    progress: (b, _a, a) => a.cl.some((i, c) => i !== b.cl[c]) || a.pr.length !== b.pr.length,
    history: observer(su, config.model === 'Synch' && config.recovery === 'system'),
    view: encode,
    actor: (a) => {
      const open = a.label.indexOf('(');
      const first = open < 0 ? '' : a.label.slice(open + 1).split(/[,)<@]/)[0];
      return a.f === 'crash' ? 'system' : NODE.includes(first) ? first : first.startsWith('c') ? `client ${first}` : 'system';
    },
  };
}

export const spec: SpecDef<MinosConfig> = {
  name: 'minos',
  title: 'MINOS: <Lin, Synch|Strict|REnf|Event|Scope>, MINOS-B and MINOS-O, with full-system crash',
  paper: 'MINOS (HPCA 2024), §III Figs. 2-3, §V Fig. 8, Table I; rebuilt in ../shared/protocols/minos-ddp.md',
  configs,
  mutants,
  findings,
  build,
  trace: minosTrace,
};
