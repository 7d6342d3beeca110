/**
 * Redis Lua scripts kept as `.lua` files next to the code that owns them, read once when their module loads and run
 * as ioredis custom commands (`defineCommand`): each connection sends a script whole once (EVAL), then only its SHA
 * (EVALSHA), and falls back to EVAL by itself when Redis answers NOSCRIPT (a restart, SCRIPT FLUSH). A Redis Cluster
 * works the same way node by node; the keys of one call must still share a hash slot (our prefix is hash-tagged).
 *
 * The build copies every `.lua` file of src/ and jobs/ next to its compiled module in dist/ (package.json `build`).
 */
import { readFileSync } from 'node:fs';
import type { ChainableCommander, Redis } from 'ioredis';
import { AppError } from './app-error.js';

export interface LuaScript {
  /** The command name it is defined under on a connection: unique across the project. */
  readonly name: string;
  readonly numberOfKeys: number;
  readonly lua: string;
}

/** A script made of `files` in order (e.g. the `now` prelude of redis-now.ts first), read now. */
export function luaScript(name: string, numberOfKeys: number, ...files: URL[]): LuaScript {
  return { name, numberOfKeys, lua: files.map((file) => readFileSync(file, 'utf8')).join('\n') };
}

/** A script called with the wrong number of keys, or on a batch made before the script was defined. */
export class LuaScriptError extends AppError {
  constructor(script: string, message: string) {
    super('lua_script', `Lua script ${script}: ${message}`, { details: { script } });
  }
}

const definedOn = new WeakMap<object, Map<string, string>>();

/** Defines `scripts` on `redis` once (later calls are free). Batches (`pipeline()`) made afterwards carry them. */
export function defineLua(redis: Redis, ...scripts: LuaScript[]): void {
  let defined = definedOn.get(redis);
  if (defined === undefined) definedOn.set(redis, (defined = new Map()));
  for (const script of scripts) {
    const lua = defined.get(script.name);
    if (lua === script.lua) continue;
    if (lua !== undefined) throw new LuaScriptError(script.name, 'another script is defined under the same name');
    redis.defineCommand(script.name, { lua: script.lua, numberOfKeys: script.numberOfKeys });
    defined.set(script.name, script.lua);
  }
}

type LuaArg = string | number;
type LuaCommand = (...keysAndArgs: LuaArg[]) => unknown;

function commandOf(target: Redis | ChainableCommander, script: LuaScript, keys: readonly string[]): LuaCommand {
  if (keys.length !== script.numberOfKeys)
    throw new LuaScriptError(script.name, `takes ${script.numberOfKeys} keys, got ${keys.length}`);
  const command = (target as unknown as Record<string, unknown>)[script.name];
  // ioredis copies a connection's commands into a batch when the batch is made
  if (typeof command !== 'function')
    throw new LuaScriptError(script.name, 'not defined on the connection this batch was made from (defineLua first)');
  return (command as LuaCommand).bind(target);
}

/** Runs `script` on `redis` (defining it there first if need be) and returns its reply. */
export async function runLua<T = unknown>(
  redis: Redis,
  script: LuaScript,
  keys: readonly string[],
  args: readonly LuaArg[] = [],
): Promise<T> {
  defineLua(redis, script);
  return (await commandOf(redis, script, keys)(...keys, ...args)) as T;
}

/** Appends `script` to `batch`; the batch's connection must have it defined (`defineLua`) before the batch was made. */
export function queueLua(
  batch: ChainableCommander,
  script: LuaScript,
  keys: readonly string[],
  args: readonly LuaArg[] = [],
): ChainableCommander {
  commandOf(batch, script, keys)(...keys, ...args);
  return batch;
}
