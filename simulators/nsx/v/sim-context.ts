/**
 * What every NSX simulator route receives, and the manager's ways of answering.
 * A body of another media type is refused with 415 (the manager documents it,
 * errors-appendix.md).
 */
import type { ServerResponse } from 'node:http';
import { sendEmpty, sendText, type RecordedRequest } from '../../sim-server.ts';
import type { NsxState } from './seed.ts';
import { el, leaf, readXml, SimXmlError, writeXml, type SimElement } from './sim-xml.ts';

/** Behaviour switches (faults are the fault plan's), read on every request. */
export interface NsxSwitches {
  /** Creates answer without a Location header. */
  omitLocation: boolean;
  /** Status for a stale If-Match on the application firewall (vShield's is unconfirmed). */
  staleStatus: 409 | 412;
  /** Status of an accepted force sync (no body either way). */
  forceSyncStatus: 200 | 204;
  /** An IP set PUT answers 200 with no body instead of the set (which one a manager does is unconfirmed). */
  emptyIpSetPutAnswer: boolean;
  /**
   * Before each of the next N application-firewall POSTs, another client
   * writes first (a rule with notes `foreign change k` is appended and the
   * generation number moves on), so that POST is stale.
   */
  foreignFirewallWrites: number;
  /**
   * The same for distributed firewall sections: before each of the next N
   * rule changes, another client adds a rule named `foreign change k` to
   * that section first, so that change's If-Match is stale.
   */
  foreignSectionWrites: number;
}

export function defaultSwitches(): NsxSwitches {
  return {
    omitLocation: false,
    staleStatus: 412,
    forceSyncStatus: 204,
    emptyIpSetPutAnswer: false,
    foreignFirewallWrites: 0,
    foreignSectionWrites: 0,
  };
}

/** What kind of manager the simulator is (fixed at start). */
export interface SimManager {
  /** Versions under which `/api/{v}/edges` is served: NSX-v 6.x has 4.0 only, vCNS 5.x 3.0 only. */
  edgeApiVersions: readonly string[];
  /** Whether `/api/4.0/firewall` (the NSX-v distributed firewall) exists. */
  distributedFirewall: boolean;
  /** Whether `/api/2.0/app/firewall` (vShield App, gone from NSX-v 6.4) exists. */
  applicationFirewall: boolean;
}

export interface SimCall {
  request: RecordedRequest;
  manager: SimManager;
  response: ServerResponse;
  state: NsxState;
  switches: NsxSwitches;
  /** Decoded path segments after `/api/`. */
  segments: string[];
}

/** NSX error codes the simulator uses. */
export const errorCodes = {
  concurrentAccess: '101',
  badRequest: '100',
  notFound: '202',
  invalidValue: '210',
  duplicateName: '213',
  inUse: '220',
  badMediaType: '415',
  preconditionFailed: '412',
  notAllowed: '405',
} as const;

/** `<error><details/><errorCode/><moduleName/></error>` (errors-appendix.md). */
export function sendError(
  call: SimCall,
  status: number,
  errorCode: string,
  details: string,
  headers: Record<string, string> = {},
): void {
  sendText(call.response, status, errorXml(errorCode, details), 'application/xml', headers);
}

/** The manager's error document. */
export function errorXml(errorCode: string, details: string): string {
  return writeXml(
    el('error', [
      leaf('details', details),
      leaf('errorCode', errorCode),
      leaf('moduleName', 'core-services'),
    ]),
  );
}

/** A success answer with an XML body. */
export function sendXml(
  call: SimCall,
  status: number,
  root: SimElement,
  headers: Record<string, string> = {},
): void {
  sendText(call.response, status, writeXml(root), 'application/xml', headers);
}

/** 201 with the new id as plain text and a Location ending in it. */
export function sendCreated(call: SimCall, id: string, location: string): void {
  sendText(call.response, 201, id, 'text/plain', call.switches.omitLocation ? {} : { location });
}

export function sendNoContent(call: SimCall, status: 200 | 204 = 200): void {
  sendEmpty(call.response, status, status === 200 ? { 'content-length': '0' } : {});
}

function mediaType(call: SimCall): string {
  return (call.request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * True when the request's media type is one of `mediaTypes`; otherwise
 * answers the manager's error with `mediaStatus`.
 */
export function mediaTypeAccepted(
  call: SimCall,
  mediaTypes: readonly string[] = ['application/xml'],
  mediaStatus = 415,
): boolean {
  if (mediaTypes.includes(mediaType(call))) return true;
  sendError(
    call,
    mediaStatus,
    mediaStatus === 415 ? errorCodes.badMediaType : errorCodes.badRequest,
    `Content-Type must be ${mediaTypes.join(' or ')}.`,
  );
  return false;
}

/**
 * The request body as XML with root `rootTag`, or undefined after answering
 * the manager's error: a media type other than `mediaTypes` (with
 * `mediaStatus`), an empty or malformed body, a DTD, or the wrong root.
 */
export function readBody(
  call: SimCall,
  rootTag: string,
  mediaTypes: readonly string[] = ['application/xml'],
  mediaStatus = 415,
): SimElement | undefined {
  if (!mediaTypeAccepted(call, mediaTypes, mediaStatus)) return undefined;
  let root: SimElement;
  try {
    root = readXml(call.request.body.toString('utf8'));
  } catch (error) {
    const reason = error instanceof SimXmlError ? error.message : 'unreadable';
    sendError(call, 400, errorCodes.badRequest, `The request body is not valid XML (${reason}).`);
    return undefined;
  }
  if (root.tag !== rootTag) {
    sendError(call, 400, errorCodes.badRequest, `The request body must be <${rootTag}>.`);
    return undefined;
  }
  return root;
}

/** `readBody`, then a 400 for the body's `problem`, if it has one. */
export function readCheckedBody(
  call: SimCall,
  rootTag: string,
  problem: (body: SimElement) => string | undefined,
): SimElement | undefined {
  const body = readBody(call, rootTag);
  if (body === undefined) return undefined;
  const found = problem(body);
  if (found === undefined) return body;
  sendError(call, 400, errorCodes.invalidValue, found);
  return undefined;
}

/**
 * The If-Match header, or undefined after answering 428 (invented: the
 * manager's documents only say that it is required).
 */
export function requiredIfMatch(call: SimCall): string | undefined {
  const ifMatch = call.request.headers['if-match'];
  if (ifMatch === undefined) {
    sendError(
      call,
      428,
      errorCodes.preconditionFailed,
      'If-Match with the generation number is required.',
    );
  }
  return ifMatch;
}

export function notFound(call: SimCall, what: string): void {
  sendError(
    call,
    404,
    errorCodes.notFound,
    `The requested object : ${what} could not be found. Object identifiers are case sensitive.`,
  );
}

export function methodNotAllowed(call: SimCall, allowed: readonly string[]): void {
  sendError(call, 405, errorCodes.notAllowed, `${call.request.method} is not supported here.`, {
    allow: allowed.join(', '),
  });
}

/** `?force=`: absent is false; anything but true/false is refused. */
export function readForce(call: SimCall): boolean | undefined {
  const force = call.request.query.get('force');
  if (force === null) return false;
  if (force === 'true' || force === 'false') return force === 'true';
  sendError(call, 400, errorCodes.badRequest, 'force must be true or false.');
  return undefined;
}
