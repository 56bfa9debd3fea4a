// The configs (extraction §7.1 shapes × the five persistency models, MINOS-B and MINOS-O,
// with or without the full-system crash), in the default tier (`interleave check`) or the
// full tier (`--full`); README "Configs" and "Mechanisms × configs" say what each covers.

import type { ConfigDef } from '../../checkers/explore/types.ts';
import type { ClientDef, MinosConfig, Persistency } from './state.ts';

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

export const configs: ConfigDef<MinosConfig>[] = [];
// The two smallest shapes of every model first (A and F, MINOS-B and MINOS-O: a few hundred
// states each), then the larger ones. `interleave check` explores the default configs in
// this order, one after another in one process, and the JavaScript engine compiles a step
// once a config makes it hot (B-synch, 80,488 states): having run every model's and
// MINOS-O's code paths by then, it compiles them with the rest, instead of throwing that
// code away and compiling it again when a later config first takes one (README "Speed,
// ninth pass"). Each config is explored as before; only the order of the list changed.
for (const m of MODELS) {
  configs.push({ name: `A-${lower(m)}`, description: `<Lin, ${m}>: ${SHAPES.A.about}; crash anywhere`, config: make('A', m, true), tier: 'default' });
  configs.push({ name: `F-${lower(m)}`, description: `MINOS-O <Lin, ${m}>: ${SHAPES.A.about}; crash anywhere`, config: make('A', m, true, { offload: true }), tier: 'default' });
}
// Then the two default configs whose paths no A or F config takes: D-scope, the only one
// with a [PERSIST]sc (its messages' and threads' scope items, the follower's flush), and
// F2-synch, the only MINOS-O one with two writes to a key (a vFIFO of two). Run after
// B-synch, as they were, they threw away about twenty functions compiled while B-synch ran
// (the encoding, deliveries, sends, guards, invariants), each then compiled again (README
// "Speed, tenth pass").
configs.push({
  name: 'D-scope',
  description: '<Lin, Scope>, 2 nodes: A writes x in scope sc1 then issues [PERSIST]sc1; B writes x concurrently; crash anywhere',
  config: { model: 'Scope', nodes: 2, keys: 1, clients: [{ node: 0, ops: [W(0, 1), { f: 'persist', sc: 1 }] }, { node: 1, ops: [W()] }], crash: true, recovery: 'replica' },
  tier: 'default',
});
configs.push({ name: 'F2-synch', description: `MINOS-O <Lin, Synch>: ${SHAPES.B2.about}; crash anywhere`, config: make('B2', 'Synch', true, { offload: true }), tier: 'default' });
for (const m of MODELS) {
  configs.push({ name: `B-${lower(m)}`, description: `<Lin, ${m}>: ${SHAPES.B.about}; no crash`, config: make('B', m, false), tier: m === 'Synch' ? 'default' : 'full' });
  configs.push({ name: `B2-${lower(m)}`, description: `<Lin, ${m}>: ${SHAPES.B2.about}; crash anywhere`, config: make('B2', m, true), tier: 'default' });
  configs.push({ name: `B-${lower(m)}-crash`, description: `<Lin, ${m}>: ${SHAPES.B.about}; crash anywhere`, config: make('B', m, true), tier: 'full' });
  configs.push({ name: `C-${lower(m)}`, description: `<Lin, ${m}>: ${SHAPES.C.about}; no crash`, config: make('C', m, false), tier: 'full' });
  // F2-synch is in the default tier, listed above
  if (m !== 'Synch') configs.push({ name: `F2-${lower(m)}`, description: `MINOS-O <Lin, ${m}>: ${SHAPES.B2.about}; crash anywhere`, config: make('B2', m, true, { offload: true }), tier: 'full' });
  configs.push({ name: `FB-${lower(m)}`, description: `MINOS-O <Lin, ${m}>: ${SHAPES.B.about}; no crash`, config: make('B', m, false, { offload: true }), tier: 'full' });
}
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
