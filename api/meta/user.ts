// The identity attributes authentication attaches to a request: opaque strings to everything after it.
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}
