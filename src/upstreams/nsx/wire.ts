/** Shapes of the network security manager (NSX) records. Placeholder. */

export interface ScopeRecord {
  id: string;
}
export interface IpSetRecord {
  objectId: string;
}
export interface ServiceRecord {
  objectId: string;
}
export interface VirtualServerRecord {
  name: string;
}
export interface FirewallConfigRecord {
  contextId: string;
}
export interface FirewallRuleRecord {
  id: string | null;
}
