import { executionAsyncResource } from 'node:async_hooks';

/**
 * Keeps one of Node's tick objects alive for the life of the process, so that V8 keeps the hidden
 * classes (maps) of all of them, and `process.nextTick` stays fast after a quiet spell.
 *
 * Why: every `process.nextTick` — Node's HTTP and stream internals make about seven a request — builds
 * its tick object with an object literal of computed (symbol) keys, one map transition per key. Those
 * maps are held only by tick objects alive at the moment and, weakly, by the transition tree and the
 * inline caches. A full collection that reduces memory (V8's memory reducer runs one after a quiet
 * spell, when no tick is pending; ordinary full collections keep unused maps for a couple of cycles,
 * these do not) frees them; the next tick builds new ones, and the literal's inline caches, having seen
 * the old maps, go megamorphic for good: from then on every key of every tick object is defined through
 * V8's runtime, about ten times the cost (docs/decisions/0003-gateway-decay-after-idle-spells.md:
 * the gateway's fall after its first rounds). A tick object kept alive keeps its map and, through
 * each map's back pointer, the whole chain, so later ticks find the same maps and the caches stay
 * monomorphic. Bare `node:http` escapes
 * this only because its old generation is so small that it rarely makes a full collection at all.
 *
 * The object is taken from inside a tick callback (the resource that tick runs under), once at start
 * and again every minute (should V8 ever replace the maps, the newest are kept). It costs one small
 * object and a timer that does not hold the process open.
 */
const kept: { tick?: object; request?: object; reply?: object } = {};
let refresh: NodeJS.Timeout | undefined;

function keepTick(): void {
  process.nextTick(() => {
    kept.tick = executionAsyncResource();
  });
}

/** Starts keeping (once per process; later calls do nothing). */
export function keepTickShapes(): void {
  if (refresh) return;
  keepTick();
  refresh = setInterval(keepTick, 60_000);
  refresh.unref();
}

/**
 * The same for the objects every request is made of (Node's request, response and socket with their
 * stream states, Fastify's Request and Reply): their classes add their fields one transition at a
 * time, and only live requests hold those maps. Each answer's request and reply are handed here when
 * the request has no body (so no uploaded body is kept) — by a guarded service route's onResponse hook
 * (gateway/http/mount.ts), by the onSend hook of every other route (answer-marks.ts) — and the latest stay alive
 * between busy spells (two stores a request).
 */
export function keepRequestShapes(request: object, reply: object): void {
  kept.request = request;
  kept.reply = reply;
}

/** The tick object kept now (for tests). */
export function keptTick(): object | undefined {
  return kept.tick;
}

/** The request and reply kept now (for tests). */
export function keptRequest(): { request?: object; reply?: object } {
  return { request: kept.request, reply: kept.reply };
}
