import type { OperationIds } from '../../../platform/http/operation-ids.ts';

/**
 * The operation ids of the IP office's API (`operationId` in its document, and the typed client's
 * method names). The register publishes functions (client search, patent detail, …), not operation
 * names: these are ours, named after those functions. A SOAP endpoint carries several WSDL operations
 * (its `SOAPAction`), so its ids name the endpoint: `…Soap` for the envelope, `…Wsdl` for its WSDL and
 * XSDs; the client's typed SOAP methods take the WSDL operation names.
 */
export const IPONZ_OPERATION_IDS = {
  'GET /clients': 'searchClients',
  'GET /clients/{clientId}': 'getClient',
  'GET /schemas/{schema}': 'getSchema',
  'GET /patents/{patentNumber}': 'getPatent',
  // The published heading's singular path, answered as the plural.
  'GET /patent/{patentNumber}': 'getPatentBySingularPath',
  'GET /patents': 'listPatents',
  'GET /trademarks/{trademarkNumber}': 'getTradeMark',
  'GET /trademarks': 'listTradeMarks',
  'GET /designs/{designNumber}': 'getDesign',
  'GET /design/{designNumber}': 'getDesignBySingularPath',
  'GET /designs': 'listDesigns',
  'GET /patents/{patentNumber}/renewal': 'checkPatentRenewal',
  'POST /patents/{patentNumber}/renew': 'renewPatent',
  'GET /trademarks/{trademarkNumber}/renewal': 'checkTradeMarkRenewal',
  'POST /trademarks/{trademarkNumber}/renew': 'renewTradeMark',
  'GET /designs/{designNumber}/renewal': 'checkDesignRenewal',
  'POST /designs/{designNumber}/renew': 'renewDesign',
  'GET /patent': 'patentWsdl',
  'POST /patent': 'patentSoap',
  'GET /trademark': 'trademarkWsdl',
  'POST /trademark': 'trademarkSoap',
  'GET /taskcorrespondence': 'taskCorrespondenceWsdl',
  'POST /taskcorrespondence': 'taskCorrespondenceSoap',
  'GET /discussioncorrespondence': 'discussionCorrespondenceWsdl',
  'POST /discussioncorrespondence': 'discussionCorrespondenceSoap',
  'GET /trademarksearch': 'trademarkSearchWsdl',
  'POST /trademarksearch': 'trademarkSearchSoap',
  'GET /download-document': 'downloadDocumentWsdl',
  'POST /download-document': 'downloadDocumentSoap',
} as const satisfies OperationIds;
