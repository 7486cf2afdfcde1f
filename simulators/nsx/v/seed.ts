/**
 * What the NSX simulator starts with. IP sets, services and the vShield App
 * rules follow the shapes of test/fixtures/nsx (nsxraml examples, MIT, and
 * the vShield API guide's example); rule 1004 adds elements and attributes
 * the gateway does not model, so that tests can see them survive.
 */
import { readXml, type SimElement } from './sim-xml.ts';

export interface SimScope {
  id: string;
  objectTypeName: string;
  name: string;
}

export interface SimIpSet {
  objectId: string;
  name: string;
  description: string;
  value: string;
  revision: number;
  scopeId: string;
  inheritanceAllowed: boolean;
  readOnly: boolean;
}

export interface SimApplication {
  objectId: string;
  name: string;
  description: string;
  protocol: string;
  value: string | undefined;
  sourcePort: string | undefined;
  revision: number;
  scopeId: string;
  inheritanceAllowed: boolean;
}

export interface SimEdge {
  id: string;
  /** The `<edgeSummary>` the edge list and `…/summary` answer. */
  summary: SimElement;
  /** `<virtualServer>` elements as stored, each with its `<virtualServerId>`. */
  virtualServers: SimElement[];
  forceSyncs: number;
}

export interface SimFirewall {
  contextId: string;
  generation: number;
  /** The `<firewallConfiguration>` element as last written. */
  configuration: SimElement;
}

/** A section of the NSX-v distributed firewall, as stored. */
export interface SimSection {
  layer: 'LAYER3' | 'LAYER2';
  /** The `<section>` element; its generationNumber attribute is kept current. */
  element: SimElement;
}

export interface SimDistributedFirewall {
  /** Layer-3 sections first, each layer in rule-evaluation order. */
  sections: SimSection[];
  /** Rule changes refused because their If-Match was stale (412), for concurrency tests. */
  staleRefusals: number;
}

export interface NsxState {
  scopes: SimScope[];
  ipSets: SimIpSet[];
  applications: SimApplication[];
  edges: SimEdge[];
  firewalls: SimFirewall[];
  distributedFirewall: SimDistributedFirewall;
  nextIpSet: number;
  nextApplication: number;
  nextVirtualServer: number;
  nextRuleId: number;
  nextDfwRuleId: number;
}

const vsmUuid = '42271168-863F-EAA7-C3FD-BCFED40B77BB';
const nodeId = 'a8dfee54-210f-47f0-a9e3-401a350eb6d8';
export const housekeeping = { vsmUuid, nodeId };

/** The allow-all rules that end a context's ruleset: layer 3 (`id`), then layer 2 (`id` + 1). */
function defaultRules(id: number): string {
  return `  <layer3FirewallRule disabled="false" precedence="default" id="${id}">
    <action>allow</action>
    <logged>false</logged>
    <notes/>
    <source/>
    <destination/>
  </layer3FirewallRule>
  <layer2FirewallRule disabled="false" precedence="default" id="${id + 1}">
    <action>allow</action>
    <logged>false</logged>
    <notes/>
    <destination/>
  </layer2FirewallRule>`;
}

const portGroupRules = `<firewallConfiguration contextId="dvportgroup-63">
  <layer3FirewallRule disabled="false" precedence="high" id="1003">
    <action>allow</action>
    <logged>true</logged>
    <notes>web tier to app tier</notes>
    <source><address><containerId>domain-c7</containerId></address></source>
    <destination>
      <address><containerId>dvportgroup-63</containerId></address>
      <application><applicationSetId>application-161</applicationSetId></application>
    </destination>
  </layer3FirewallRule>
  <layer3FirewallRule managedBy="ops-team" disabled="false" precedence="default" id="1004">
    <sectionId>1007</sectionId>
    <action>deny</action>
    <logged>false</logged>
    <notes>block the &lt;legacy&gt; &amp; "old" subnet – ü</notes>
    <source>
      <address><containerId>ipset-3</containerId></address>
      <exclude>false</exclude>
      <address><ipAddress>10.9.9.0/24</ipAddress></address>
    </source>
    <destination>
      <application><applicationSetId>application-400</applicationSetId></application>
    </destination>
    <appliedToList>
      <appliedTo><value>dvportgroup-63</value><type kind="portgroup">DistributedVirtualPortgroup</type></appliedTo>
    </appliedToList>
  </layer3FirewallRule>
${defaultRules(1001)}
</firewallConfiguration>`;

const datacenterRules = `<firewallConfiguration contextId="datacenter-2">
${defaultRules(2001)}
</firewallConfiguration>`;

/** loadbalancer-virtualserver-get.xml (RAML 6.4, the virtualServer-1 subtree of the load balancer PUT example). */
const defaultVirtualServer = `<virtualServer>
  <virtualServerId>virtualServer-1</virtualServerId>
  <name>http_vip</name>
  <description>http virtualServer</description>
  <enabled>true</enabled>
  <ipAddress>10.117.35.172</ipAddress>
  <protocol>http</protocol>
  <port>80</port>
  <connectionLimit>123</connectionLimit>
  <connectionRateLimit>123</connectionRateLimit>
  <applicationProfileId>applicationProfile-1</applicationProfileId>
  <defaultPoolId>pool-1</defaultPoolId>
  <enableServiceInsertion>false</enableServiceInsertion>
  <accelerationEnabled>true</accelerationEnabled>
  <vendorProfile>
    <vendorTemplateId>577</vendorTemplateId>
    <vendorTemplateName>F5</vendorTemplateName>
    <profileAttributes>
      <attribute>
        <key>abcd</key>
        <name>abcd</name>
        <value>1234</value>
      </attribute>
    </profileAttributes>
  </vendorProfile>
</virtualServer>`;

/**
 * An edge by its summary: edge-3's is the RAML 6.4 example of GET …/edges/{id}/summary
 * (its recentJobInfo / allowedActions markup is mended: the example closes
 * one with the other); edge-1 and edge-5 follow its shape.
 */
function edge(
  id: string,
  name: string,
  edgeType: string,
  extra: string,
  virtualServers: SimElement[] = [],
): SimEdge {
  const summary = readXml(`<edgeSummary>
  <objectId>${id}</objectId>
  <objectTypeName>Edge</objectTypeName>
  <vsmUuid>423A993F-BEE6-1285-58F1-54E48D508D90</vsmUuid>
  <nodeId>916287b3-761d-430b-8ab2-83878dfe3e7f</nodeId>
  <revision>9</revision>
  <type><typeName>Edge</typeName></type>
  <name>${name}</name>
  <clientHandle></clientHandle>
  <extendedAttributes/>
  <isUniversal>false</isUniversal>
  <universalRevision>0</universalRevision>
  <id>${id}</id>
  <state>deployed</state>
  <edgeType>${edgeType}</edgeType>
  <datacenterMoid>datacenter-21</datacenterMoid>
  <datacenterName>Datacenter Site A</datacenterName>
  <tenantId>default</tenantId>
  <apiVersion>4.0</apiVersion>${extra}
  <localEgressEnabled>false</localEgressEnabled>
</edgeSummary>`);
  return { id, summary, virtualServers, forceSyncs: 0 };
}

const capturedJobs = `
  <recentJobInfo>
    <jobId>jobdata-35884</jobId>
    <status>SUCCESS</status>
  </recentJobInfo>
  <edgeStatus>GREEN</edgeStatus>
  <allowedActions>
    <string>Redeploy Edge</string>
    <string>Change Edge Appliance Core Dump Configuration</string>
    <string>Enable hypervisorAssist</string>
    <string>Edit Highavailability</string>
    <string>Edit Dns</string>
    <string>Edit Syslog</string>
    <string>Edit Automatic Rule Generation Settings</string>
    <string>Disable SSH</string>
    <string>Download Edge TechSupport Logs</string>
  </allowedActions>`;

/**
 * The distributed firewall: the default sections of the RAML 6.4 example of
 * GET /api/4.0/firewall/globalroot-0/config, with the example section 4
 * (GET …/layer3sections/{id}) above the layer-3 default section, as user
 * sections stand above it on a real manager.
 */
const dfwSections: Array<[SimSection['layer'], string]> = [
  section(
    'LAYER3',
    4,
    'TestSection',
    `  <rule id="16" disabled="false" logged="true">
    <name>okn-2</name>
    <action>ALLOW</action>
    <appliedToList>
      <appliedTo><name>vm1 - Network adapter 1</name><value>5013bcd8-c666-1e28-c7a9-600da945954f.000</value><type>Vnic</type><isValid>true</isValid></appliedTo>
      <appliedTo><name>Small XP-2</name><value>vm-126</value><type>VirtualMachine</type><isValid>true</isValid></appliedTo>
    </appliedToList>
    <sectionId>4</sectionId>
    <sources excluded="false">
      <source><name>Site B Datacenter</name><value>datacenter-57</value><type>Datacenter</type><isValid>true</isValid></source>
      <source><value>10.112.1.1</value><type>Ipv4Address</type><isValid>true</isValid></source>
    </sources>
    <services>
      <service><destinationPort>80</destinationPort><protocol>6</protocol><subProtocol>6</subProtocol></service>
      <service><name>VMware-VDM2.x-Ephemeral</name><value>application-161</value><isValid>true</isValid></service>
    </services>
  </rule>
${rule(12, 'test-1', 'DENY', 4, true)}`,
  ),
  section('LAYER3', 2, 'defaultSectionLayer3', rule(2, 'Default Rule', 'DENY', 2)),
  section('LAYER2', 1, 'defaultSectionLayer2', rule(1, 'Default Rule', 'ALLOW', 1)),
];

/** A section of the example's generation, holding `rules` (XML). */
function section(
  layer: SimSection['layer'],
  id: number,
  name: string,
  rules: string,
): [SimSection['layer'], string] {
  return [
    layer,
    `<section id="${id}" name="${name}" generationNumber="1510700045886" timestamp="1510700045886" tcpStrict="true" stateless="false" useSid="false" type="${layer}">
${rules}
</section>`,
  ];
}

/** A rule applied to the whole distributed firewall, not logged. */
function rule(
  id: number,
  name: string,
  action: string,
  sectionId: number,
  disabled = false,
): string {
  return `  <rule id="${id}" disabled="${disabled}" logged="false">
    <name>${name}</name>
    <action>${action}</action>
    <appliedToList>
      <appliedTo><name>DISTRIBUTED_FIREWALL</name><value>DISTRIBUTED_FIREWALL</value><type>DISTRIBUTED_FIREWALL</type><isValid>true</isValid></appliedTo>
    </appliedToList>
    <sectionId>${sectionId}</sectionId>
  </rule>`;
}

/** A fresh copy of the seed state. */
export function seedNsxState(): NsxState {
  return {
    scopes: [
      { id: 'globalroot-0', objectTypeName: 'GlobalRoot', name: 'Global' },
      { id: 'universalroot-0', objectTypeName: 'UniversalRoot', name: 'Universal' },
      { id: 'datacenter-2', objectTypeName: 'Datacenter', name: 'Datacenter West' },
    ],
    ipSets: [
      ipSet('ipset-1', 'sys-gen-empty-ipset-edge-fw', '', '', 'globalroot-0', 2, true, true),
      ipSet(
        'ipset-3',
        'IPSET-2',
        'web tier addresses',
        '10.112.1.1,10.112.2.0/24,192.168.10.10-192.168.10.20',
        'globalroot-0',
        1,
        false,
      ),
      ipSet(
        'ipset-4',
        'R&D <lab> "α"',
        'names keep every character',
        '10.20.0.0/16,2001:db8::/32',
        'globalroot-0',
        3,
        true,
      ),
      ipSet('ipset-7', 'dc-west-mgmt', '', '172.16.0.0/16', 'datacenter-2', 1, false),
    ],
    applications: [
      app('application-161', 'VMware-VDM2.x-Ephemeral', 'TCP', '1024-65535', 'globalroot-0'),
      app('application-371', 'TestService-Renamed', 'MS_RPC_UDP', '500', 'globalroot-0'),
      app('application-400', 'HTTPS', 'TCP', '443', 'globalroot-0'),
      app('application-401', 'DNS-UDP', 'UDP', '53', 'globalroot-0', '1024-65535'),
      app('application-402', 'ICMP Echo', 'ICMP', 'echo-request', 'globalroot-0'),
      app('application-410', 'dc-west-ssh', 'TCP', '22', 'datacenter-2'),
    ],
    edges: [
      edge('edge-1', 'Edge-Services-01', 'gatewayServices', '', [readXml(defaultVirtualServer)]),
      edge('edge-3', 'Perimeter-Gateway-01', 'gatewayServices', capturedJobs),
      edge('edge-5', 'Distributed-Router-01', 'distributedRouter', ''),
    ],
    distributedFirewall: {
      sections: dfwSections.map(([layer, xml]) => ({ layer, element: readXml(xml) })),
      staleRefusals: 0,
    },
    firewalls: [
      {
        contextId: 'dvportgroup-63',
        generation: 1312802020950,
        configuration: readXml(portGroupRules),
      },
      {
        contextId: 'datacenter-2',
        generation: 1312802020000,
        configuration: readXml(datacenterRules),
      },
    ],
    nextIpSet: 8,
    nextApplication: 411,
    nextVirtualServer: 2,
    nextRuleId: 1005,
    nextDfwRuleId: 17,
  };
}

function ipSet(
  objectId: string,
  name: string,
  description: string,
  value: string,
  scopeId: string,
  revision: number,
  inheritanceAllowed: boolean,
  readOnly = false,
): SimIpSet {
  return { objectId, name, description, value, revision, scopeId, inheritanceAllowed, readOnly };
}

function app(
  objectId: string,
  name: string,
  protocol: string,
  value: string,
  scopeId: string,
  sourcePort?: string,
): SimApplication {
  return {
    objectId,
    name,
    description: '',
    protocol,
    value,
    sourcePort,
    revision: 2,
    scopeId,
    inheritanceAllowed: true,
  };
}
