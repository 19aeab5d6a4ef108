// Request and response schemas of the IAM area.
import { Type } from 'typebox';
import { minPasswordLength } from '../../accounts/passwords.ts';

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' });
const Password = Type.String({ minLength: minPasswordLength, maxLength: 1024 });

const RoleRef = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: '1 Administrators, 2 Users, 3 Read-only' })),
    name: Type.Optional(Type.String({ description: 'Administrators, Users or Read-only' })),
  },
  { description: 'A role by id or by name' },
);

export const LoginBody = Type.Object({
  username: Email,
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  one_time_password: Type.Optional(Type.String({ maxLength: 64 })),
});

export const RefreshBody = Type.Object({
  refresh: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Alias of refresh' })),
});

export const TokenPair = Type.Object({ access: Type.String(), refresh: Type.String() }, { $id: 'TokenPair' });

export const User = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    name: Type.String(),
    client: Type.Integer({ description: 'The account (client) id' }),
    deleted: Type.Boolean(),
    groups: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
    created: Type.String(),
  },
  { $id: 'User' },
);

export const NewUserBody = Type.Object({
  email: Email,
  password: Password,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  role: Type.Optional(RoleRef),
  user_role: Type.Optional(RoleRef),
});

export const Account = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    companyName: Type.String(),
    status: Type.String(),
    deleted: Type.Boolean(),
    operator: Type.Boolean(),
    currentUser: Type.Optional(Type.Integer()),
    users: Type.Array(Type.Ref('User')),
    created: Type.String(),
  },
  { $id: 'Account' },
);

export const NewAccountBody = Type.Object({
  email: Email,
  password: Password,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const ApiToken = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    exp_date: Type.Union([Type.String(), Type.Null()]),
    expired: Type.Boolean(),
    deleted: Type.Boolean(),
    created: Type.String(),
    last_usage: Type.Union([Type.String(), Type.Null()]),
    client_user: Type.Object({
      client_id: Type.Integer(),
      user_id: Type.Integer(),
      user_name: Type.String(),
      user_email: Type.String(),
      role: Type.Object({ id: Type.Integer(), name: Type.String() }),
    }),
  },
  { $id: 'ApiToken' },
);

export const CreatedApiToken = Type.Object({
  token: Type.String({ description: '<id>_<secret>; shown only once' }),
  ...ApiToken.properties,
});

export const NewApiTokenBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  exp_date: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601 date-time; absent or null: never expires' })),
  client_user: Type.Optional(Type.Object({ role: Type.Optional(RoleRef) })),
});

export const sharedIamSchemas = [TokenPair, User, Account, ApiToken];
