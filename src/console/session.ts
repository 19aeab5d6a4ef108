// The signed-in session. The access token lives in memory only; the refresh token is kept in
// sessionStorage (this tab, until it closes) so that a reload refreshes instead of asking for the
// password again. Concurrent 401s share one refresh: a refresh token is single-use, and spending it
// twice would end the session as a stolen one.
import { Api, read, type Credentials } from './api.ts';

export type Role = 'Administrators' | 'Users' | 'Read-only';

export interface Me {
  accountId: number;
  accountName: string;
  operator: boolean;
  userId: number;
  email: string;
  role: Role;
}

interface AccountView {
  id: number;
  name: string;
  operator: boolean;
  currentUser: number;
  users: { id: number; email: string; groups: { name: string }[] }[];
}

const refreshKey = 'edgeplane.refresh';

export class Session implements Credentials {
  readonly api: Api;
  me: Me | undefined;
  private accessToken: string | undefined;
  private renewing: Promise<boolean> | undefined;
  private readonly onEnded: () => void;

  constructor(onEnded: () => void) {
    this.api = new Api(this);
    this.onEnded = onEnded;
  }

  access(): string | undefined {
    return this.accessToken;
  }

  async login(username: string, password: string): Promise<void> {
    const pair = await read<{ access: string; refresh: string }>(await postJson('/iam/auth/jwt/login', { username, password }));
    this.keep(pair);
    await this.loadMe();
  }

  /** Resumes a session kept in this tab; false when there is none or it is over. */
  async resume(): Promise<boolean> {
    if (sessionStorage.getItem(refreshKey) === null) return false;
    if (!(await this.renew())) return false;
    await this.loadMe();
    return true;
  }

  renew(): Promise<boolean> {
    this.renewing ??= this.refresh().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  async logout(): Promise<void> {
    const refresh = sessionStorage.getItem(refreshKey);
    this.forget();
    // The server ends the session, so a copied token stops working too; signing out here does not wait on it.
    if (refresh !== null) await postJson('/iam/auth/jwt/logout', { refresh }).catch(() => undefined);
  }

  canWrite(): boolean {
    return this.me !== undefined && this.me.role !== 'Read-only';
  }

  isAdministrator(): boolean {
    return this.me?.role === 'Administrators';
  }

  private async refresh(): Promise<boolean> {
    const refresh = sessionStorage.getItem(refreshKey);
    if (refresh === null) return false;
    const response = await postJson('/iam/auth/jwt/refresh', { refresh });
    if (!response.ok) {
      this.forget();
      this.onEnded();
      return false;
    }
    this.keep(await read<{ access: string; refresh: string }>(response));
    return true;
  }

  private async loadMe(): Promise<void> {
    const account = await this.api.get<AccountView>('/iam/clients/me');
    const user = account.users.find((u) => u.id === account.currentUser);
    this.me = {
      accountId: account.id,
      accountName: account.name,
      operator: account.operator,
      userId: account.currentUser,
      email: user?.email ?? '',
      role: (user?.groups[0]?.name ?? 'Read-only') as Role,
    };
  }

  private keep(pair: { access: string; refresh: string }): void {
    this.accessToken = pair.access;
    sessionStorage.setItem(refreshKey, pair.refresh);
  }

  private forget(): void {
    this.accessToken = undefined;
    this.me = undefined;
    sessionStorage.removeItem(refreshKey);
  }
}

function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
