// Clients (§2.1, §2.2): one outstanding operation each, sent to the key's primary in the
// cached configuration; a rejection makes the client refetch the configuration and resend;
// a client times out only when its server cannot answer. GETs are served by the primary
// alone (§2.5). Actor: client c (a.a, or a.b for the server's steps reject and get).
import { act, none, type Cx, type RowanStepOf } from './context.ts';
import { admit, curCfg, getAt } from './cluster.ts';
import { clientW } from './state.ts';

const next = (cx: Cx, cl: { pc: number; st: string }, c: number) => {
  cl.pc++;
  cl.st = cl.pc < cx.conf.clients[c].length ? 'idle' : 'done';
};
export const clientSteps: Record<'invoke' | 'clientReturn' | 'refetchConfig' | 'clientTimeout' | 'reject' | 'get', RowanStepOf> = {
  invoke: {
    name: 'invoke', cites: '§2.1 L217: the client sends an RPC to the key\'s primary in its cached configuration',
    writes: none,
    enabled: (cx, s, c, out) => {
      const cl = s.cl[c];
      if (cl.st === 'idle' && cl.pc < cx.conf.clients[c].length) out.push(act('invoke', c));
    },
    effect: (cx, d, a) => {
      const cl = clientW(d, a.a);
      const op = cx.conf.clients[a.a][cl.pc];
      cl.st = 'sent';
      cl.to = d.cm.cfgs[cl.term].dist[cx.conf.keyShard[op.k]].p;
    },
  },
  clientReturn: {
    name: 'clientReturn', cites: '§2.1: the reply reaches the client',
    writes: none,
    enabled: (_cx, s, c, out) => {
      if (s.cl[c].st === 'reply') out.push(act('clientReturn', c));
    },
    effect: (cx, d, a) => {
      const cl = clientW(d, a.a);
      const op = cx.conf.clients[a.a][cl.pc];
      if (op.f !== 'get') d.acked = [...d.acked, { sh: cx.conf.keyShard[op.k], k: op.k, v: cl.v }]; // shared: replaced
      next(cx, cl, a.a);
    },
  },
  refetchConfig: {
    name: 'refetchConfig', cites: 'L294: on a rejection the client fetches the configuration from the CM and resends',
    writes: none,
    enabled: (_cx, s, c, out) => {
      if (s.cl[c].st === 'rej') out.push(act('refetchConfig', c));
    },
    effect: (cx, d, a) => {
      const cl = clientW(d, a.a);
      cl.term = d.cm.term;
      cl.to = d.cm.cfgs[cl.term].dist[cx.conf.keyShard[cx.conf.clients[a.a][cl.pc].k]].p;
      cl.st = 'sent';
    },
  },
  clientTimeout: {
    name: 'clientTimeout', cites: '§3.7 [I]: no reply; the attempt stays pending, the client refetches and moves on',
    writes: none,
    enabled: (_cx, s, c, out) => {
      const cl = s.cl[c];
      if (cl.st === 'lost') out.push(act('clientTimeout', c));
      if (cl.st === 'sent' || cl.st === 'wait') {
        // a client times out only when its server cannot answer: crashed, lease expired,
        // evicted from the configuration, or recovering from a power failure
        const p = s.srv[cl.to];
        if (!p.up || !p.lease || p.cold !== 0 || !curCfg(s).members.includes(cl.to)) out.push(act('clientTimeout', c));
      }
    },
    effect: (cx, d, a) => {
      const cl = clientW(d, a.a);
      cl.term = d.cm.term;
      next(cx, cl, a.a);
    },
  },
  reject: {
    name: 'reject', cites: 'L294: stale term, or not the primary (L308)',
    writes: none,
    enabled: (cx, s, c, out) => {
      const cl = s.cl[c];
      if (cl.st === 'sent' && admit(s, cx.conf, cl.to, c, cx.mut) === 'reject') out.push(act('reject', cl.to, c));
    },
    effect: (_cx, d, a) => {
      clientW(d, a.b).st = 'rej';
    },
  },
  get: {
    name: 'get', cites: '§2.5, L221: index lookup and value read, the GET\'s linearization point',
    writes: none,
    enabled: (cx, s, c, out) => {
      const cl = s.cl[c];
      if (cl.st !== 'sent' || cx.conf.clients[c][cl.pc].f !== 'get' || admit(s, cx.conf, cl.to, c, cx.mut) !== 'accept') return;
      if (getAt(s, cx.conf, cl.to, cx.conf.clients[c][cl.pc].k, cx.mut).ok) out.push(act('get', cl.to, c));
    },
    effect: (cx, d, a) => {
      const cl = clientW(d, a.b);
      const op = cx.conf.clients[a.b][cl.pc];
      const { item } = getAt(d, cx.conf, a.a, op.k, cx.mut);
      cl.st = 'reply';
      cl.out = item && !item.d ? item.x : null;
    },
  },
};
