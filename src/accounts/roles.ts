// The three roles of an account, their ids as the API shows them, and their order.

export const roles = ['Administrators', 'Users', 'Read-only'] as const;
export type Role = (typeof roles)[number];

const ids: Record<Role, number> = { Administrators: 1, Users: 2, 'Read-only': 3 };
const rank: Record<Role, number> = { Administrators: 3, Users: 2, 'Read-only': 1 };

export function roleId(role: Role): number {
  return ids[role];
}

function isRole(value: unknown): value is Role {
  return roles.includes(value as Role);
}

/** Reads a role by name (any case) or by id, as clients send `{role: {id, name}}`. */
export function parseRole(value: { id?: number; name?: string }): Role | undefined {
  if (value.name !== undefined) {
    return roles.find((r) => r.toLowerCase() === value.name?.toLowerCase());
  }
  return roles.find((r) => ids[r] === value.id);
}

export function atLeast(role: Role, required: Role): boolean {
  return rank[role] >= rank[required];
}

/** The weaker of two roles: what a token may do when its issuer's role has changed since. */
export function weaker(a: Role, b: Role): Role {
  return rank[a] <= rank[b] ? a : b;
}

export function asRole(value: string): Role {
  if (!isRole(value)) throw new Error(`unknown role in store: ${value}`);
  return value;
}
