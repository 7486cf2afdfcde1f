/** `Authorization` value for HTTP Basic; credentials are UTF-8, as every appliance here expects. */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

export function bearerAuthorization(token: string): string {
  return `Bearer ${token}`;
}
