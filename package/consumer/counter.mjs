// A spec in plain JavaScript, as a consumer writes it: two processes increment a shared
// counter in two steps (read, then write), so an update can be lost.
export function counter(processes = 2) {
  return {
    init: () => [{ x: 0, pc: Array(processes).fill(0), t: Array(processes).fill(0) }],
    actions: (s) => s.pc.flatMap((pc, p) => (pc === 0 ? [{ label: `read(p${p})`, p }] : pc === 1 ? [{ label: `write(p${p})`, p }] : [])),
    next(s, a) {
      const pc = s.pc.slice();
      const t = s.t.slice();
      let x = s.x;
      if (pc[a.p] === 0) t[a.p] = x;
      else x = t[a.p] + 1;
      pc[a.p]++;
      return { x, pc, t };
    },
    invariants: {
      noLostUpdate: (s) => (s.pc.every((pc) => pc === 2) && s.x !== processes ? `x = ${s.x} after ${processes} increments` : true),
    },
  };
}
