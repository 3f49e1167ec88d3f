/** The scanner export formats this package can read. */
export type ScanFormat = 'nessus' | 'burp' | 'nmap' | 'nuclei';

export const SCAN_FORMATS: readonly ScanFormat[] = ['nessus', 'burp', 'nmap', 'nuclei'];

/** Names used in messages a person reads. */
export const SCAN_FORMAT_LABELS: Readonly<Record<ScanFormat, string>> = {
  nessus: 'Nessus',
  burp: 'Burp Suite',
  nmap: 'Nmap',
  nuclei: 'Nuclei',
};

/** The XML formats and the root element each must have. */
export type XmlScanFormat = Exclude<ScanFormat, 'nuclei'>;

export const ROOT_ELEMENT_OF: Readonly<Record<XmlScanFormat, string>> = {
  nessus: 'NessusClientData_v2',
  burp: 'issues',
  nmap: 'nmaprun',
};
