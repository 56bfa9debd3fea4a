// A deep copy of plain data (arrays, plain objects, primitives). Specs copy a state before
// changing it so next() stays pure; this is several times faster than structuredClone,
// which goes through the serializer.
export function clonePlain<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = clonePlain(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = clonePlain((value as Record<string, unknown>)[key]);
  return out as T;
}
