/** One entry of the v4 envelope's `errors` or `messages`, shared by the envelope and the request context. Type only. */

/** An entry of `errors` or `messages`. */
export interface EnvelopeMessage {
  code: number;
  message: string;
  error_chain?: { code: number; message: string }[];
  documentation_url?: string;
}
