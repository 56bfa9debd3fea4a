// A spec's state as a collapsible tree (HTML `details`, no script needed), diffed against
// the state before: changed leaves show before → after; lists are diffed by identity (a
// longest common subsequence of equal elements), so removing a queue's head shows one
// element removed rather than every element changed; containers without a change are
// folded. Every value goes through `esc`.

import { esc } from './html.ts';

export type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

/** Plain data for display: Maps, Sets, bigints, typed arrays and undefined made JSON-like. */
export function plain(v: unknown, depth = 0): Plain {
  if (depth > 64) return '…';
  if (v === undefined) return null;
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v !== 'object') return String(v);
  if (v instanceof Map) {
    const out: { [key: string]: Plain } = Object.create(null);
    for (const [k, x] of v) out[typeof k === 'string' ? k : JSON.stringify(plain(k, depth + 1))] = plain(x, depth + 1);
    return out;
  }
  if (v instanceof Set) return [...v].map((x) => plain(x, depth + 1));
  if (Array.isArray(v)) return v.map((x) => plain(x, depth + 1));
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
  const out: { [key: string]: Plain } = Object.create(null);
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = plain(x, depth + 1);
  return out;
}

const json = (v: Plain) => JSON.stringify(v);
const isContainer = (v: Plain): v is Plain[] | { [key: string]: Plain } => v !== null && typeof v === 'object';

export type ListEdit =
  | { kind: 'same'; before: Plain; after: Plain; at: number }
  | { kind: 'changed'; before: Plain; after: Plain; at: number }
  | { kind: 'removed'; before: Plain; from: number }
  | { kind: 'added'; after: Plain; at: number };

/**
 * Edits from list a to list b: equal elements matched by a longest common subsequence;
 * between two matches, removed and added elements are paired as changed elements (so an
 * element updated in place reads as one change). Lists of equal length whose positions
 * explain the change in no more edits are compared position by position (slots, one per
 * process). Above 200,000 cells the lists are compared position by position (bounded time).
 */
export function listDiff(a: readonly Plain[], b: readonly Plain[]): ListEdit[] {
  const ka = a.map(json);
  const kb = b.map(json);
  const n = a.length;
  const m = b.length;
  const pairs: [number, number][] = [];
  if (n * m <= 200_000) {
    const lcs = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number) => i * (m + 1) + j;
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) lcs[at(i, j)] = ka[i] === kb[j] ? lcs[at(i + 1, j + 1)] + 1 : Math.max(lcs[at(i + 1, j)], lcs[at(i, j + 1)]);
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (ka[i] === kb[j]) pairs.push([i++, j++]);
      else if (lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) i++;
      else j++;
    }
  } else {
    for (let i = 0; i < Math.min(n, m); i++) if (ka[i] === kb[i]) pairs.push([i, i]);
  }
  const out: ListEdit[] = [];
  let i = 0;
  let j = 0;
  const gap = (toI: number, toJ: number) => {
    while (i < toI && j < toJ) {
      out.push({ kind: 'changed', before: a[i], after: b[j], at: j });
      i++;
      j++;
    }
    while (i < toI) out.push({ kind: 'removed', before: a[i], from: i++ });
    while (j < toJ) out.push({ kind: 'added', after: b[j], at: j++ });
  };
  for (const [pi, pj] of pairs) {
    gap(pi, pj);
    out.push({ kind: 'same', before: a[pi], after: b[pj], at: pj });
    i = pi + 1;
    j = pj + 1;
  }
  gap(n, m);
  // Slots (a fixed-size list, one per process): when positions explain the change with no
  // more edits than identity does, compare position by position.
  if (n === m) {
    let positional = 0;
    for (let k = 0; k < n; k++) if (ka[k] !== kb[k]) positional++;
    const edits = out.filter((e) => e.kind !== 'same').length;
    if (positional <= edits) return a.map((x, k) => (ka[k] === kb[k] ? { kind: 'same', before: x, after: b[k], at: k } : { kind: 'changed', before: x, after: b[k], at: k }));
  }
  return out;
}

export interface TreeOptions {
  /** Top-level fields that are ghost or monitor state, marked `internal` (hidden by CSS unless asked). */
  internal?: ReadonlySet<string>;
}

const SHORT = 60;

function summary(v: Plain): string {
  if (Array.isArray(v)) return `[${v.length}]`;
  if (isContainer(v)) return `{${Object.keys(v).length}}`;
  return '';
}

function preview(v: Plain): string {
  const s = json(v);
  return s.length > SHORT ? `${s.slice(0, SHORT - 1)}…` : s;
}

/** A value alone (added or removed, or the initial state): folded beyond the first level. */
function whole(name: string, v: Plain, cls: string, open: boolean, path?: string): string {
  const label = name ? `<span class="key">${esc(name)}</span>: ` : '';
  const at = path !== undefined ? ` data-path="${esc(path)}"` : '';
  if (!isContainer(v) || json(v).length <= SHORT) return `<div class="leaf ${cls}"${at}>${label}${esc(json(v))}</div>`;
  const kids = Array.isArray(v) ? v.map((x, i) => whole(String(i), x, '', false)) : Object.entries(v).map(([k, x]) => whole(k, x, '', false));
  return `<details class="node ${cls}"${at}${open ? ' open' : ''}><summary>${label}<span class="note">${summary(v)} ${esc(preview(v))}</span></summary><div class="kids">${kids.join('')}</div></details>`;
}

function node(name: string, path: string, before: Plain, after: Plain, cls: string, opts: TreeOptions): string {
  const label = name ? `<span class="key">${esc(name)}</span>: ` : '';
  if (json(before) === json(after)) return whole(name, after, cls, path === '');
  const sameKind = isContainer(before) && isContainer(after) && Array.isArray(before) === Array.isArray(after);
  if (!sameKind) {
    return `<div class="leaf changed ${cls}" data-path="${esc(path)}">${label}<del>${esc(preview(before))}</del> → <ins>${esc(preview(after))}</ins></div>`;
  }
  const kids: string[] = [];
  if (Array.isArray(before) && Array.isArray(after)) {
    for (const e of listDiff(before, after)) {
      if (e.kind === 'same') kids.push(whole(String(e.at), e.after, '', false));
      else if (e.kind === 'changed') kids.push(node(String(e.at), `${path}[${e.at}]`, e.before, e.after, '', opts));
      else if (e.kind === 'removed') kids.push(whole(`−${e.from}`, e.before, 'removed changed', false, `${path}[${e.from}]`));
      else kids.push(whole(`+${e.at}`, e.after, 'added changed', false, `${path}[${e.at}]`));
    }
  } else {
    const b = before as { [key: string]: Plain };
    const a = after as { [key: string]: Plain };
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.hasOwn(a, k))];
    for (const k of keys) {
      const p = path ? `${path}.${k}` : k;
      const extra = path === '' && opts.internal?.has(k) ? 'internal' : '';
      if (!Object.hasOwn(b, k)) kids.push(whole(k, a[k], `added changed ${extra}`, false, p));
      else if (!Object.hasOwn(a, k)) kids.push(whole(k, b[k], `removed changed ${extra}`, false, p));
      else kids.push(node(k, p, b[k], a[k], extra, opts));
    }
  }
  return `<details class="node has-change ${cls}" open><summary>${label}<span class="note">${summary(after)}</span></summary><div class="kids">${kids.join('')}</div></details>`;
}

/** The state `after` as a tree, its changes from `before` highlighted (no `before`: no changes). */
export function stateTree(after: unknown, before: unknown | undefined, opts: TreeOptions = {}): string {
  const a = plain(after);
  const b = before === undefined ? a : plain(before);
  if (!isContainer(a)) return `<div class="tree">${node('', '', b, a, '', opts)}</div>`;
  // The top level is always unfolded, with internal fields marked.
  if (json(a) === json(b) && !Array.isArray(a)) {
    const kids = Object.entries(a).map(([k, x]) => whole(k, x, opts.internal?.has(k) ? 'internal' : '', false));
    return `<div class="tree">${kids.join('')}</div>`;
  }
  return `<div class="tree">${node('', '', b, a, '', opts)}</div>`;
}
