// The shadowfax machine's actions as one table (specs/kit/table.ts), in the order the
// search enumerates them (part of a breadth-first search's meaning: which counterexample
// of a given length it reports). Per client thread: issue; then per session (to S, then
// to T) the batch sent, the server's receipt of it (and M18's split receipt), the answer
// back; then the view change. Then the steps of no client: faults and recovery (B3), the
// administrator's remap, the source's phases and chunks, ops the servers finish later,
// the target's receipts, the storage tiers and compaction.

import type { ActionTable } from '../kit/table.ts';
import { clientRecvStep, clientSendStep, handleViewChangeStep, issueStep } from './client.ts';
import type { Cx } from './context.ts';
import { sourceSteps, targetSteps } from './migration.ts';
import { recoverySteps } from './recovery.ts';
import { serverLaterSteps, serverRecvSteps } from './server.ts';
import type { ShadowfaxAction, State } from './state.ts';
import { tierSteps } from './tiers.ts';

export function table(cx: Cx): ActionTable<State, ShadowfaxAction> {
  const source = sourceSteps(cx);
  const target = targetSteps(cx);
  const later = serverLaterSteps(cx);
  const tiers = tierSteps(cx);
  return {
    actors: (s) => s.clients.length,
    perActor: [
      issueStep(cx),
      { members: (s, c) => s.clients[c].sessions.length, steps: [clientSendStep(cx), ...serverRecvSteps(cx), clientRecvStep()] },
      handleViewChangeStep(cx),
    ],
    global: [
      ...recoverySteps(cx),
      source.migrate,
      source.threadRefresh,
      source.srcAdvance,
      source.sendChunk,
      later.serverCompleteIO,
      later.installSampleCopy,
      target.tgtRecvControl,
      target.tgtRecvData,
      later.tgtRetryPended,
      tiers.tgtFetchIndirection,
      tiers.compact,
      tiers.truncate,
      tiers.ownerRecvCompacted,
      tiers.evict,
      tiers.flush,
    ],
  };
}
