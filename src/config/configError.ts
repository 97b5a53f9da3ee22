/** A setting that stops the process, with a message naming the variable (never its value when it is a secret). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
