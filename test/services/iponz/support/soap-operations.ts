/**
 * Every SOAP operation the IP office's WSDLs serve, by `<endpoint> <operation>`, with how its sample
 * envelope (`wsdl/samples/<endpoint>.<operation>.xml`) is made to break the XSD: the text of `element`
 * replaced by `value`, which its type refuses. soap-conformance.test.ts fails when an operation of a
 * served WSDL has no entry here, or an entry names no served operation.
 */
export interface SoapOperationEntry {
  /** An element of the sample whose text is replaced. */
  element: string;
  /** Text the element's XSD type refuses. */
  value: string;
}

export const SOAP_OPERATIONS: Record<string, SoapOperationEntry> = {
  'trademarksearch ListTrademarks': { element: 'Title', value: 'x'.repeat(256) },
  'download-document GetObject': { element: 'ObjectIdentifier', value: 'not-hexadecimal!' },
  'patent FilePatentApplication': { element: 'ExaminationRequested', value: 'perhaps' },
  'trademark FileTradeMarkApplication': { element: 'IntendedUseCode', value: 'MAYBE' },
  'taskcorrespondence getTaskList': { element: 'TransactionCode', value: 'Get Every Task' },
  'taskcorrespondence getTaskContent': { element: 'TaskIdentifier', value: 'the first' },
  'taskcorrespondence updateTask': { element: 'TransactionCode', value: 'Delete Task' },
  'discussioncorrespondence getDiscussionList': { element: 'Status', value: 'sideways' },
  'discussioncorrespondence getDiscussionContent': { element: 'DiscussionIdentifier', value: 'one' },
};
