// The sequential models known by name (the CLI's --model, and worker threads, which
// receive a model's name rather than its functions).

import type { Model } from '../types.ts';
import { independent, INDEPENDENT_PREFIX } from './independent.ts';
import { kvAppend, kvAppendUnpartitioned } from './kv.ts';
import { mutex } from './mutex.ts';
import { queue } from './queue.ts';
import { casRegister, etcdCasRegister, register } from './register.ts';
import { set } from './set.ts';

export const models: Record<string, Model> = Object.assign(Object.create(null) as Record<string, Model>, {
  register,
  'cas-register': casRegister,
  'etcd-cas-register': etcdCasRegister,
  'kv-append': kvAppend,
  'kv-append-unpartitioned': kvAppendUnpartitioned,
  set,
  queue,
  mutex,
});

export { casRegister, etcdCasRegister, kvAppend, kvAppendUnpartitioned, mutex, queue, register, set };

export { independent, INDEPENDENT_PREFIX };

/**
 * A model by name: a registered one, or `independent:<registered>` (Jepsen's independent
 * keys, checked key by key). Undefined for any other name.
 */
export function findModel(name: string): Model | undefined {
  if (Object.hasOwn(models, name)) return models[name];
  if (!name.startsWith(INDEPENDENT_PREFIX)) return undefined;
  const base = name.slice(INDEPENDENT_PREFIX.length);
  return Object.hasOwn(models, base) ? independent(models[base]!) : undefined;
}
