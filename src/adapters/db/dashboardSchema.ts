// The dashboard's users, their one-time password links and their sessions (schema.ts holds the whole schema).

export interface DashboardUsersTable {
  id: string;
  email: string;
  /** 'operator' | 'merchant' | 'pos' */
  role: string;
  /** The merchant a merchant or PoS user belongs to; null for operators. */
  merchant_id: string | null;
  /** `scrypt$…` (passwordHash.ts); null until the person sets a password. */
  password_hash: string | null;
  /** Base32 TOTP secret once the user enrolled a second factor. */
  totp_secret: string | null;
  /** The last TOTP time step accepted: a code is good once. */
  totp_last_step: string | number | bigint | null;
  /** 'active' | 'disabled' */
  status: string;
  created_at: string;
  updated_at: string;
}

export interface DashboardPasswordLinksTable {
  token_hash: string;
  user_id: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface DashboardSessionsTable {
  token_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute end, whatever the activity. */
  expires_at: string;
}
