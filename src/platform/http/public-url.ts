import type { AddressInfo } from 'node:net';

/**
 * The gateway's public base URL: the start of every absolute URL it makes (links in answers, signed
 * download redirects, WSDL addresses, the OAuth issuer, mail). `RSG_PUBLIC_URL` when set; otherwise the
 * address the server listens on, as `rsg start` prints it. Never the request's Host or X-Forwarded-Host:
 * a client names any host it likes there, and our answers (a signed download link among them) would
 * send the next reader to that host.
 */
export class PublicUrl {
  #base: string;
  readonly #configured: boolean;
  readonly #host: string;

  constructor(configured: string | undefined, host: string, port: number) {
    this.#configured = configured !== undefined;
    this.#host = host;
    this.#base = configured ?? listenUrl(host, port);
  }

  /** `https://api.example.com` or `http://localhost:8080`: no trailing slash. */
  get base(): string {
    return this.#base;
  }

  /** The absolute URL of a path from the gateway's root (`/sandbox/nzbn/v5/entities`). */
  absolute(path: string): string {
    return `${this.#base}${path}`;
  }

  /**
   * Called once the server listens: without RSG_PUBLIC_URL the base is the configured host with the
   * port bound (a port of 0 is known only now), as the banner prints it. Ours, not anything a client sent.
   */
  listening(address: AddressInfo | string | null): void {
    if (this.#configured || !address || typeof address === 'string') return;
    this.#base = listenUrl(this.#host, address.port);
  }
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** `http://<host>:<port>` of a listen address: a wildcard address is named localhost, IPv6 is bracketed. */
export function listenUrl(host: string, port: number): string {
  const name = WILDCARDS.has(host)
    ? 'localhost'
    : host.includes(':') && !host.startsWith('[')
      ? `[${host}]`
      : host;
  return `http://${name}:${port}`;
}
