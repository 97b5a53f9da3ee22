/** A line logged, as a test reads it. */
export interface LoggedLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string | undefined;
}

type LogCall = (fields: unknown, message?: string, ...rest: unknown[]) => void;

/** A logger that keeps what it was told, for tests that check what an operator would read (pino's call shape). */
export function recordingLogger(): {
  info: LogCall;
  warn: LogCall;
  error: LogCall;
  readonly lines: LoggedLine[];
} {
  const lines: LoggedLine[] = [];
  const at =
    (level: LoggedLine['level']): LogCall =>
    (fields, message) =>
      // pino's two shapes: (fields, message) and (message) alone.
      typeof fields === 'string'
        ? lines.push({ level, fields: {}, message: fields })
        : lines.push({ level, fields: { ...(fields as Record<string, unknown>) }, message });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}
