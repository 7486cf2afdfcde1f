import { describe, expect, it } from 'vitest';
import {
  checkDfwRuleInput,
  checkGenerationNumber,
  checkNsxId,
  checkIpSetInput,
  checkPosition,
  checkRuleInput,
  checkRuleInputs,
  checkServiceInput,
  checkVirtualServerInput,
  serviceProtocols,
} from '../../src/inputs/network.ts';
import { isNsxId } from '../../src/upstreams/nsx/ids.ts';
import { isAddress, isPortList } from '../../src/inputs/network-addresses.ts';
import { buildXml } from '../../src/upstreams/nsx/xml/xml.ts';
import { refusedArgument } from '../helpers/thrown.ts';

describe('checkNsxId', () => {
  it.each(['ipset-12', 'globalroot-0', 'edge-1', 'dvportgroup-63', '1003', 'a.b_c:d'])(
    'accepts %s',
    (id) => {
      expect(checkNsxId(id, 'id')).toBe(id);
      expect(isNsxId(id)).toBe(true);
    },
  );

  it.each(['', '../ipset-1', 'ipset 1', 'a/b', 'a?b', '-lead', 'x'.repeat(129), 'ü'])(
    'refuses %j',
    (id) => {
      expect(refusedArgument(() => checkNsxId(id, 'id'))).toBe('id');
      expect(isNsxId(id)).toBe(false);
    },
  );
});

describe('addresses and ports', () => {
  it.each([
    '10.0.0.1',
    '10.0.0.0/24',
    '0.0.0.0/0',
    '10.0.0.1-10.0.0.9',
    '2001:db8::1',
    '2001:db8::/32',
    '2001:db8::1-2001:db8::ff',
    '::ffff:10.0.0.1',
  ])('accepts the address %s', (value) => {
    expect(isAddress(value)).toBe(true);
  });

  it.each([
    '',
    '10.0.0',
    '10.0.0.256',
    '10.0.0.0/33',
    '10.0.0.9-10.0.0.1',
    '10.0.0.1-2001:db8::1',
    '10.0.0.1,10.0.0.2',
    'host.example',
    '2001:db8::/129',
    '2001:db8::ff-2001:db8::1',
  ])('refuses the address %j', (value) => {
    expect(isAddress(value)).toBe(false);
  });

  it.each(['80', '443,8000-8080', '1-65535', '22,80,443'])('accepts the ports %s', (value) => {
    expect(isPortList(value)).toBe(true);
  });

  it.each(['', '0', '65536', '80-79', '80,', 'http', '80 443', '1-2-3'])(
    'refuses the ports %j',
    (value) => {
      expect(isPortList(value)).toBe(false);
    },
  );
});

describe('checkIpSetInput', () => {
  it('answers a draft with trimmed addresses and the name exactly as given', () => {
    expect(
      checkIpSetInput({ name: ' R&D <lab> "α" ', addresses: [' 10.0.0.1 ', '10.0.0.0/24'] }),
    ).toEqual({
      name: ' R&D <lab> "α" ',
      description: undefined,
      addresses: ['10.0.0.1', '10.0.0.0/24'],
      inheritanceAllowed: undefined,
    });
  });

  it.each([
    ['an empty name', { name: '  ', addresses: ['10.0.0.1'] }, 'input.name'],
    ['no addresses', { name: 'n', addresses: [] }, 'input.addresses'],
    ['an empty address', { name: 'n', addresses: ['10.0.0.1', ''] }, 'input.addresses[1]'],
    ['a bad address', { name: 'n', addresses: ['10.0.0.300'] }, 'input.addresses[0]'],
    ['a control character', { name: 'a\u0001', addresses: ['10.0.0.1'] }, 'input.name'],
    ['a long name', { name: 'x'.repeat(257), addresses: ['10.0.0.1'] }, 'input.name'],
  ])('refuses %s', (_what, input, argument) => {
    expect(refusedArgument(() => checkIpSetInput(input))).toBe(argument);
  });
});

describe('checkServiceInput', () => {
  it('upper-cases the protocol', () => {
    expect(checkServiceInput({ name: 'web', protocol: 'tcp', ports: '443' })).toMatchObject({
      protocol: 'TCP',
      ports: '443',
    });
  });

  it('takes one port number for a port protocol other than TCP and UDP', () => {
    expect(
      checkServiceInput({ name: 'rpc', protocol: 'MS_RPC_TCP', ports: '135', sourcePorts: '1024' }),
    ).toMatchObject({ protocol: 'MS_RPC_TCP', ports: '135', sourcePorts: '1024' });
  });

  it('takes an ICMP type name as the ports of an ICMP service', () => {
    expect(
      checkServiceInput({ name: 'ping', protocol: 'ICMP', ports: 'echo-request' }),
    ).toMatchObject({
      protocol: 'ICMP',
      ports: 'echo-request',
    });
  });

  it.each([
    ['an unknown protocol', { name: 'n', protocol: 'HTTP' }, 'input.protocol'],
    ['bad ports', { name: 'n', protocol: 'TCP', ports: '80-' }, 'input.ports'],
    ['bad source ports', { name: 'n', protocol: 'UDP', sourcePorts: '99999' }, 'input.sourcePorts'],
    ['a port list for FTP', { name: 'n', protocol: 'FTP', ports: '21,2121' }, 'input.ports'],
    [
      'a port range for MS_RPC_TCP',
      { name: 'n', protocol: 'MS_RPC_TCP', ports: '135-139' },
      'input.ports',
    ],
    [
      'a source port list for ORACLE_TNS',
      { name: 'n', protocol: 'ORACLE_TNS', ports: '1521', sourcePorts: '1,2' },
      'input.sourcePorts',
    ],
    [
      'TFTP, which no source confirms',
      { name: 'n', protocol: 'TFTP', ports: '69' },
      'input.protocol',
    ],
    [
      'source ports on ICMP',
      { name: 'n', protocol: 'ICMP', sourcePorts: '1' },
      'input.sourcePorts',
    ],
    ['ports on IGMP', { name: 'n', protocol: 'IGMP', ports: '1' }, 'input.ports'],
    ['an empty name', { name: '', protocol: 'TCP' }, 'input.name'],
  ])('refuses %s', (_what, input, argument) => {
    expect(refusedArgument(() => checkServiceInput(input))).toBe(argument);
  });
});

describe('checkVirtualServerInput', () => {
  const valid = { name: 'vip', ipAddress: '10.0.0.5', protocol: 'HTTPS', port: '443' };

  it('writes the protocol as the manager spells it', () => {
    expect(checkVirtualServerInput(valid)).toMatchObject({
      protocol: 'https',
      enabled: null,
      description: null,
    });
  });

  it.each([
    ['a bad address', { ...valid, ipAddress: '10.0.0' }, 'input.ipAddress'],
    ['a bad protocol', { ...valid, protocol: 'FTP' }, 'input.protocol'],
    ['a bad port', { ...valid, port: 'https' }, 'input.port'],
    ['a negative limit', { ...valid, connectionLimit: -1 }, 'input.connectionLimit'],
    ['an unsafe pool id', { ...valid, defaultPoolId: 'pool/1' }, 'input.defaultPoolId'],
  ])('refuses %s', (_what, input, argument) => {
    expect(refusedArgument(() => checkVirtualServerInput(input))).toBe(argument);
  });
});

describe('checkRuleInput', () => {
  it('fills the schema defaults and converts the JSON parts', () => {
    const draft = checkRuleInput({
      action: 'deny',
      source: { address: { containerId: 'ipset-3' } },
    });
    expect(draft).toMatchObject({
      id: undefined,
      layer: 'LAYER3',
      action: 'deny',
      disabled: false,
      logged: false,
      precedence: 'default',
      notes: undefined,
      destination: undefined,
    });
    expect(buildXml(draft.source?.xml ?? { name: 'x', attributes: {}, children: [] })).toBe(
      '<source><address><containerId>ipset-3</containerId></address></source>',
    );
  });

  it('keeps null apart from unset (clear versus keep)', () => {
    expect(checkRuleInput({ action: 'allow', notes: null, source: null })).toMatchObject({
      notes: null,
      source: null,
    });
  });

  it.each([
    ['an empty action', { action: ' ' }, 'rule.action'],
    ['an action with markup', { action: 'allow<' }, 'rule.action'],
    ['a bad id', { action: 'allow', id: '10 03' }, 'rule.id'],
    ['JSON without XML form', { action: 'allow', destination: { 'a b': 'x' } }, 'rule.destination'],
    ['a JSON null inside a part', { action: 'allow', source: { port: null } }, 'rule.source'],
    [
      'a <service> element, which no vShield App example shows',
      { action: 'allow', service: { port: '80' } },
      'rule.service',
    ],
  ])('refuses %s', (_what, input, argument) => {
    expect(refusedArgument(() => checkRuleInput(input))).toBe(argument);
  });

  it('refuses the same id twice in a ruleset', () => {
    expect(
      refusedArgument(() =>
        checkRuleInputs([
          { action: 'allow', id: '1' },
          { action: 'deny', id: '1' },
        ]),
      ),
    ).toBe('rules[1].id');
  });
});

describe('position and generation number', () => {
  it('refuses a negative position', () => {
    expect(refusedArgument(() => checkPosition(-1))).toBe('position');
    expect(checkPosition(0)).toBe(0);
    expect(checkPosition(null)).toBeUndefined();
  });

  it('takes a generation number with or without the ETag quotes', () => {
    expect(checkGenerationNumber('1312802020950')).toBe('1312802020950');
    expect(checkGenerationNumber('"1312802020950"')).toBe('1312802020950');
    expect(checkGenerationNumber(undefined)).toBeUndefined();
    expect(refusedArgument(() => checkGenerationNumber('12 34'))).toBe('generationNumber');
  });
});

describe('checkDfwRuleInput', () => {
  it('lower-cases the action and keeps each JSON part with its element', () => {
    const draft = checkDfwRuleInput({ action: 'DENY', sources: { source: { value: 'ipset-3' } } });
    expect(draft.action).toBe('deny');
    expect(draft.sources?.xml.name).toBe('sources');
    expect(draft.destinations).toBeUndefined();
  });

  it.each([
    ['an action the manager does not know', { action: 'permit' }, 'rule.action'],
    ['JSON without an XML form', { action: 'allow', sources: { 'a b': 'x' } }, 'rule.sources'],
    ['an empty name', { action: 'allow', name: ' ' }, 'rule.name'],
    ['a control character in notes', { action: 'allow', notes: 'a\u0001' }, 'rule.notes'],
  ])('refuses %s', (_what, input, argument) => {
    expect(refusedArgument(() => checkDfwRuleInput(input))).toBe(argument);
  });
});

describe('network inputs, field by field', () => {
  it('knows every service protocol, by its name in any case', () => {
    expect(serviceProtocols).toEqual([
      'TCP',
      'UDP',
      'FTP',
      'MS_RPC_TCP',
      'MS_RPC_UDP',
      'SUN_RPC_TCP',
      'SUN_RPC_UDP',
      'ORACLE_TNS',
      'NBNS_BROADCAST',
      'NBDG_BROADCAST',
      'ICMP',
      'IPV6ICMP',
      'IGMP',
    ]);
    expect(checkServiceInput({ name: 's', protocol: ' sun_rpc_udp ', ports: '111' })).toMatchObject(
      { protocol: 'SUN_RPC_UDP', ports: '111' },
    );
    expect(
      checkServiceInput({ name: 's', protocol: 'IPv6Icmp', ports: 'echo-request' }),
    ).toMatchObject({ protocol: 'IPV6ICMP' });
    expect(checkServiceInput({ name: 's', protocol: 'igmp' })).toMatchObject({ protocol: 'IGMP' });
  });

  it('takes an ICMP type as a word, starting with a letter or digit', () => {
    expect(
      refusedArgument(() => checkServiceInput({ name: 's', protocol: 'ICMP', ports: '-echo' })),
    ).toBe('input.ports');
    expect(
      refusedArgument(() => checkServiceInput({ name: 's', protocol: 'ICMP', ports: '_echo' })),
    ).toBe('input.ports');
    expect(checkServiceInput({ name: 's', protocol: 'ICMP', ports: '8' })).toMatchObject({
      ports: '8',
    });
  });

  it('keeps the description, names and flags it was given', () => {
    expect(
      checkIpSetInput({
        name: 'web',
        description: 'the web tier',
        addresses: [' 10.0.0.1 '],
        inheritanceAllowed: true,
      }),
    ).toEqual({
      name: 'web',
      description: 'the web tier',
      addresses: ['10.0.0.1'],
      inheritanceAllowed: true,
    });
    expect(
      checkServiceInput({
        name: 'web',
        protocol: 'TCP',
        ports: '443',
        description: 'https',
        inheritanceAllowed: false,
      }),
    ).toMatchObject({ description: 'https', inheritanceAllowed: false });
    expect(
      checkVirtualServerInput({
        name: 'vs',
        description: 'front',
        enabled: true,
        ipAddress: '10.0.0.9',
        protocol: ' https ',
        port: '443',
        connectionLimit: 5,
        connectionRateLimit: 7,
        applicationProfileId: 'applicationProfile-1',
        defaultPoolId: 'pool-2',
        accelerationEnabled: true,
      }),
    ).toEqual({
      name: 'vs',
      description: 'front',
      enabled: true,
      ipAddress: '10.0.0.9',
      protocol: 'https',
      port: '443',
      connectionLimit: 5,
      connectionRateLimit: 7,
      applicationProfileId: 'applicationProfile-1',
      defaultPoolId: 'pool-2',
      accelerationEnabled: true,
    });
    expect(
      checkRuleInput({ action: ' allow ', notes: 'why', disabled: true, logged: true }),
    ).toMatchObject({ action: 'allow', notes: 'why', disabled: true, logged: true });
    expect(
      checkDfwRuleInput({
        action: ' ALLOW ',
        name: 'r',
        notes: 'why',
        disabled: true,
        logged: true,
        destinations: { destination: { type: 'IPSet', value: 'ipset-1' } },
        services: { service: { value: 'application-1' } },
        appliedToList: { appliedTo: { value: 'globalroot-0' } },
      }),
    ).toMatchObject({
      action: 'allow',
      name: 'r',
      notes: 'why',
      disabled: true,
      logged: true,
      destinations: { json: { destination: { type: 'IPSet', value: 'ipset-1' } } },
      services: { json: { service: { value: 'application-1' } } },
      appliedToList: { json: { appliedTo: { value: 'globalroot-0' } } },
    });
    expect(checkDfwRuleInput({ action: 'deny' })).toMatchObject({ disabled: false, logged: false });
  });

  it('refuses a description or notes longer than 4096 characters', () => {
    const long = 'x'.repeat(4097);
    expect(
      checkIpSetInput({ name: 'a', description: 'x'.repeat(4096), addresses: ['10.0.0.1'] })
        .description,
    ).toHaveLength(4096);
    expect(
      refusedArgument(() =>
        checkIpSetInput({ name: 'a', description: long, addresses: ['10.0.0.1'] }),
      ),
    ).toBe('input.description');
    expect(refusedArgument(() => checkRuleInput({ action: 'allow', notes: long }))).toBe(
      'rule.notes',
    );
    expect(
      refusedArgument(() =>
        checkVirtualServerInput({
          name: 'v',
          description: long,
          ipAddress: '10.0.0.1',
          protocol: 'TCP',
          port: '80',
        }),
      ),
    ).toBe('input.description');
    expect(refusedArgument(() => checkDfwRuleInput({ action: 'allow', notes: long }))).toBe(
      'rule.notes',
    );
  });

  it('takes a portless protocol without ports, and a rule without a service', () => {
    expect(checkServiceInput({ name: 's', protocol: 'IGMP' })).toMatchObject({ protocol: 'IGMP' });
    expect(checkRuleInput({ action: 'allow', service: null })).toMatchObject({ action: 'allow' });
  });

  it('takes several new rules without ids', () => {
    expect(checkRuleInputs([{ action: 'allow' }, { action: 'deny' }])).toHaveLength(2);
  });

  it('reads a generation number trimmed, with or without its quotes', () => {
    expect(checkGenerationNumber(null)).toBeUndefined();
    expect(checkGenerationNumber(undefined)).toBeUndefined();
    expect(checkGenerationNumber(' "1312802020950" ')).toBe('1312802020950');
    expect(checkGenerationNumber(' 42 ')).toBe('42');
    expect(refusedArgument(() => checkGenerationNumber('"12"3'))).toBe('generationNumber');
    expect(refusedArgument(() => checkGenerationNumber('1"23"'))).toBe('generationNumber');
  });
  it('names the argument it refuses, wherever it is', () => {
    expect(
      refusedArgument(() =>
        checkServiceInput({ name: 's', protocol: 'TCP', description: 'x'.repeat(4097) }),
      ),
    ).toBe('input.description');
    expect(
      refusedArgument(() =>
        checkVirtualServerInput({ name: '', ipAddress: '10.0.0.1', protocol: 'TCP', port: '80' }),
      ),
    ).toBe('input.name');
    expect(
      refusedArgument(() => checkRuleInputs([{ action: 'allow' }, { action: 'no way' }])),
    ).toBe('rules[1].action');
    expect(
      refusedArgument(() => checkRuleInput({ action: 'allow', precedence: 'very high' })),
    ).toBe('rule.precedence');
    expect(
      checkServiceInput({ name: 's', protocol: 'TCP', ports: '80', inheritanceAllowed: true }),
    ).toMatchObject({ inheritanceAllowed: true });
  });
});
