/** Acting users: logged in on first use, refreshed once when a call answers 401. */
import type { Agent } from 'undici';
import { getPath } from './paths.ts';
import { isSuccess, send, StepError, type HttpRequest } from './http.ts';
import type { Actor } from './types.ts';

interface Tokens {
  accessToken: string;
  refreshToken: string;
}

export class ActorSession {
  private tokens: Tokens | undefined;

  constructor(
    readonly name: string,
    readonly actor: Actor,
    private readonly baseUrl: string,
    private readonly dispatcher: Agent,
    /** Added to the message when the login fails. */
    private readonly loginHint?: string,
  ) {}

  /** The current access token, logging in first when there is none. */
  async accessToken(): Promise<string> {
    this.tokens ??= await this.login();
    return this.tokens.accessToken;
  }

  /** Exchanges the refresh token for a new pair; false when the platform refuses. */
  async refresh(): Promise<boolean> {
    if (!this.tokens) return false;
    const res = await send(
      this.post('/v1/ol/auth/refresh', { refreshToken: this.tokens.refreshToken }),
      this.dispatcher,
    );
    const tokens = tokensIn(res.body);
    if (!isSuccess(res.status) || !tokens) return false;
    this.tokens = tokens;
    return true;
  }

  private async login(): Promise<Tokens> {
    const req = this.post('/v1/ol/auth/login', { email: this.actor.email, password: this.actor.password });
    const res = await send(req, this.dispatcher);
    const tokens = tokensIn(res.body);
    if (isSuccess(res.status) && tokens) return tokens;
    const shown = { ...req, body: { email: this.actor.email, password: '[redacted]' } };
    const hint = this.loginHint ? `; ${this.loginHint}` : '';
    throw new StepError(`cannot log in as actor ${this.name} (${this.actor.email})${hint}`, shown, res);
  }

  private post(path: string, body: object): HttpRequest {
    return {
      method: 'POST',
      url: `${this.baseUrl}${path}`,
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body,
    };
  }
}

function tokensIn(body: unknown): Tokens | undefined {
  const accessToken = getPath(body, ['data', 'accessToken']);
  const refreshToken = getPath(body, ['data', 'refreshToken']);
  return typeof accessToken === 'string' && typeof refreshToken === 'string'
    ? { accessToken, refreshToken }
    : undefined;
}
