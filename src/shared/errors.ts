/**
 * One error type for the whole service. Domain code throws `AppError` (or a subclass); only the edges
 * (the v4 API, S3, the DNS server, the bucket binding) translate it into their wire format.
 */

/** One entry of an error's cause chain, as the v4 API's `error_chain` carries it. */
export interface ErrorDetail {
  code: number;
  message: string;
}

/** A domain error with a stable numeric code and the HTTP status the v4 API answers with. */
export class AppError extends Error {
  readonly code: number;
  readonly status: number;
  /** More errors reported together with this one (validation collects every problem of a body). */
  readonly others: AppError[];
  /** Nested causes, rendered as `error_chain` where the interface does so. */
  readonly chain: ErrorDetail[];

  constructor(code: number, message: string, status = 400, opts: { others?: AppError[]; chain?: ErrorDetail[] } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.others = opts.others ?? [];
    this.chain = opts.chain ?? [];
  }

  /** This error followed by the ones reported with it. */
  all(): AppError[] {
    return [this, ...this.others];
  }
}

/** Raised when several validation problems are found at once; the first one leads. */
export function combineErrors(errors: AppError[]): AppError {
  if (errors.length === 0) throw new Error('combineErrors needs at least one error');
  const [first, ...rest] = errors;
  return new AppError(first!.code, first!.message, first!.status, { others: rest, chain: first!.chain });
}

/** Collects validation errors so that a whole request body is checked before failing. */
export class ErrorCollector {
  readonly errors: AppError[] = [];

  /** Records one problem. */
  add(code: number, message: string, status = 400): void {
    this.errors.push(new AppError(code, message, status));
  }

  /** Records an AppError thrown by a nested validator. */
  push(err: AppError): void {
    this.errors.push(...err.all());
  }

  /** True when nothing was recorded. */
  get ok(): boolean {
    return this.errors.length === 0;
  }

  /** Throws the collected errors as one AppError, if any. */
  throwIfAny(): void {
    if (this.errors.length > 0) throw combineErrors(this.errors);
  }
}
