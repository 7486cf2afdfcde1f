import { randomUUID } from 'node:crypto';

/**
 * vRA 8's error body. Of the three specification files only the IaaS API
 * defines one (`ServiceErrorResponse`: `message`, `statusCode`, `errorCode`,
 * `messageId`, `serverErrorId`, `details`…); the simulator answers that shape
 * from every service (docs/upstreams.md, vRA 8).
 */
export interface Vra8ErrorBody {
  message: string;
  statusCode: number;
  errorCode: number;
  serverErrorId: string;
}

/** A refusal a route throws; the router answers it as vRA 8's error body. */
export class Vra8Error extends Error {
  readonly status: number;
  readonly errorCode: number;
  constructor(status: number, message: string, errorCode = 0) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
  }

  body(): Vra8ErrorBody {
    return {
      message: this.message,
      statusCode: this.status,
      errorCode: this.errorCode,
      serverErrorId: randomUUID(),
    };
  }
}

export const badRequest = (message: string): Vra8Error => new Vra8Error(400, message);
export const unauthorized = (): Vra8Error => new Vra8Error(401, 'Unauthorized');
export const forbidden = (message = 'Forbidden'): Vra8Error => new Vra8Error(403, message);
export const notFound = (what: string, id: string): Vra8Error =>
  new Vra8Error(404, `${what} with id ${id} not found`);
export const conflict = (message: string): Vra8Error => new Vra8Error(409, message);
