/**
 * The proxy's logger: pino, JSON lines, with every record passed through the secret masking
 * of src/security/masking.ts (object members, the message text, error messages and stacks).
 * The masking hook runs only for records that pass the level filter, so disabled debug logging
 * costs nothing on the hot path.
 */
import { pino, type Logger, type DestinationStream, type LevelWithSilent } from 'pino';
import { mask, maskText } from '../security/masking.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Append to this file (created with its directory); default: standard output. */
  file?: string;
  /** Write to this stream instead (tests). */
  destination?: DestinationStream;
  /** Base fields of every record. */
  name?: string;
}

/** Serialise an error with masked message and stack. */
function errSerializer(e: unknown): unknown {
  return mask(e);
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const options = {
    level: opts.level ?? 'info',
    name: opts.name ?? 'paimon-procedure-proxy',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: errSerializer, error: errSerializer },
    formatters: {
      // Every merged object (bindings of the call) is masked.
      log(obj: Record<string, unknown>): Record<string, unknown> {
        return mask(obj);
      },
      bindings(b: pino.Bindings): pino.Bindings {
        return mask(b);
      },
    },
    hooks: {
      // Mask the message string and interpolation arguments.
      logMethod(this: Logger, args: Parameters<pino.LogFn>, method: pino.LogFn): void {
        const masked = args.map((a) => (typeof a === 'string' ? maskText(a) : a)) as Parameters<pino.LogFn>;
        method.apply(this, masked);
      },
    },
  } satisfies pino.LoggerOptions;
  const dest = opts.destination ?? (opts.file ? pino.destination({ dest: opts.file, mkdir: true, sync: false }) : pino.destination({ dest: 1, sync: false }));
  return maskChildBindings(pino(options, dest));
}

/**
 * pino serialises a child's bindings once, without the `log` formatter, so they are masked
 * here, for children of children too.
 */
function maskChildBindings(logger: Logger): Logger {
  const original = logger.child.bind(logger);
  logger.child = ((bindings: pino.Bindings, childOptions?: pino.ChildLoggerOptions) =>
    maskChildBindings(original(mask(bindings), childOptions) as Logger)) as unknown as Logger["child"];
  return logger;
}

/** A logger that drops everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
