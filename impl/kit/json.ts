// JSON payloads for the low-rate messages of coordinators (a master's membership, client
// registration, queries): readable in a capture, and a bad payload is an error, not a crash.

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

export function decodeJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
}
