/**
 * Messages between the HTTP host (main thread) and the worker thread that runs one edge script.
 * Bodies never travel inside these messages: each carries a MessagePort streamed with port-stream.ts.
 */
import type { MessagePort } from 'node:worker_threads';
import type { BucketBinding } from './script-config.js';

/** What the worker needs to load the script and build `env`. */
export interface WorkerSetup {
  /** file: URL of the module script. */
  scriptUrl: string;
  dataDir: string;
  buckets: BucketBinding[];
  compatibilityDate: string | undefined;
  compatibilityFlags: string[];
  /** Plain-text variables exposed on env next to the buckets. */
  vars: Record<string, string>;
}

/** Host -> worker: run the script's fetch handler for one request. */
export interface FetchMessage {
  type: 'fetch';
  id: number;
  method: string;
  url: string;
  headers: [string, string][];
  /** The request body's port, or null for a request without a body. */
  body: MessagePort | null;
  /** Content-Length of the body when the client declared it (the body then has a known length). */
  length: number | undefined;
}

/** Worker -> host: the script is loaded and ready. */
export interface ReadyMessage { type: 'ready' }
/** Worker -> host: the script could not be loaded. */
export interface LoadErrorMessage { type: 'load-error'; message: string; stack: string | undefined }
/** Worker -> host: the handler returned a Response. */
export interface ResponseMessage {
  type: 'response';
  id: number;
  status: number;
  statusText: string;
  headers: [string, string][];
  body: MessagePort | null;
}
/** Worker -> host: the handler threw (or returned something that is not a Response). */
export interface ScriptErrorMessage { type: 'script-error'; id: number; message: string; stack: string | undefined }
/** Worker -> host: something to log that belongs to no request (waitUntil rejections, unhandled rejections). */
export interface LogMessage { type: 'log'; level: 'warn' | 'error'; msg: string; stack: string | undefined }

/** Everything the worker posts to the host. */
export type FromWorker = ReadyMessage | LoadErrorMessage | ResponseMessage | ScriptErrorMessage | LogMessage;
