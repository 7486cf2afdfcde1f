/**
 * How an appliance of the older generation answers a request it will not
 * serve: a path the next generation has (vRA 8's `/iaas/api/about`, NSX-T's
 * `/api/v1/node/version`) or any request without a credential. Real vRA 7
 * appliances answer through Tomcat and its authentication filter, so the
 * same path may get any of these depending on the appliance's set-up.
 */
import type { ServerResponse } from 'node:http';
import { sendEmpty, sendJson, sendText } from './sim-server.ts';

export const guardedAnswers = [
  /** The simulator's own 404 (its default). */
  '404',
  /** Tomcat's "HTTP Status 401 - Authentication required" HTML error report. */
  '401-html',
  /** 401 with a JSON error body. */
  '401-json',
  /** 403 with Tomcat's HTML error report. */
  '403',
  /** A redirect to the login page (`redirectStatus`, default 302). */
  'redirect',
  /** 200 with an HTML login page, as a portal that redirects internally answers. */
  'login-page',
] as const;

export type GuardedAnswer = (typeof guardedAnswers)[number];

export const redirectStatuses = [301, 302, 303, 307, 308] as const;
export type RedirectStatus = (typeof redirectStatuses)[number];

/**
 * Tomcat 7's error report (vRA 7's tc Server answers with it; VMware's vRA 7
 * Programming Guide shows the 401 one). The exact markup of a given
 * appliance is not recorded: this is its shape, title and heading.
 */
export function tomcatErrorPage(status: 401 | 403, reason: string): string {
  return (
    '<html><head><title>Apache Tomcat/7.0.59 - Error report</title><style><!--H1 {font-family:Tahoma,Arial,sans-serif;color:white;background-color:#525D76;font-size:22px;} --></style> </head>' +
    `<body><h1>HTTP Status ${status} - ${reason}</h1><HR size="1" noshade="noshade">` +
    `<p><b>type</b> Status report</p><p><b>message</b> <u>${reason}</u></p>` +
    `<p><b>description</b> <u>This request requires HTTP authentication.</u></p>` +
    '<HR size="1" noshade="noshade"><h3>Apache Tomcat/7.0.59</h3></body></html>'
  );
}

const loginPage =
  '<!DOCTYPE html><html><head><title>VMware Identity Manager</title></head>' +
  '<body><form method="post" action="/SAAS/auth/login"><input name="username"><input name="password" type="password"></form></body></html>';

/**
 * Sends `answer` ('404' is each simulator's own). `loginAt` is the path a
 * redirect names, below the address the client used (`host`).
 */
export function sendGuardedAnswer(
  response: ServerResponse,
  answer: Exclude<GuardedAnswer, '404'>,
  options: {
    host: string | undefined;
    loginAt: string;
    redirectStatus?: RedirectStatus;
    /** The realm of `WWW-Authenticate` on a 401. */
    realm: string;
    /** The body of '401-json': the appliance's own error document. */
    json: unknown;
  },
): void {
  const html = 'text/html;charset=utf-8';
  const challenge = { 'www-authenticate': `Basic realm="${options.realm}"` };
  switch (answer) {
    case '401-html':
      return sendText(
        response,
        401,
        tomcatErrorPage(401, 'Authentication required'),
        html,
        challenge,
      );
    case '401-json':
      return sendJson(response, 401, options.json, challenge);
    case '403':
      return sendText(response, 403, tomcatErrorPage(403, 'Access is denied'), html);
    case 'redirect':
      return sendEmpty(response, options.redirectStatus ?? 302, {
        location: `http://${options.host ?? '127.0.0.1'}${options.loginAt}`,
        'content-length': '0',
      });
    case 'login-page':
      return sendText(response, 200, loginPage, html);
  }
}

/** A CLI value: one of `guardedAnswers`, or `redirect-301` … `redirect-308`; undefined when neither. */
export function parseGuardedAnswer(
  text: string,
): { answer: GuardedAnswer; redirectStatus?: RedirectStatus } | undefined {
  const answer = guardedAnswers.find((known) => known === text);
  if (answer !== undefined) return { answer };
  const status = redirectStatuses.find((known) => text === `redirect-${known}`);
  return status === undefined ? undefined : { answer: 'redirect', redirectStatus: status };
}
