/** Thrown on purpose by the example routes; the name makes them easy to find and to ignore in Sentry. */
export class SentryExampleError extends Error {
  constructor(where: string) {
    super(`Sentry example error thrown ${where}`);
    this.name = 'SentryExampleError';
  }
}
