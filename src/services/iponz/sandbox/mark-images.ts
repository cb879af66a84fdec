/**
 * The sandbox's trade mark images (ours): each mark's image is a document named `<number>.gif`, the
 * name its `MarkImageName` gives, so the image is found from the record; its bytes are a picture of the
 * mark made on demand (documents/mark-picture.ts). A mark whose random documents hold no image gets one
 * with an identifier made from its number (`094f` and the number), outside the case's random stream.
 */
import type { CaseDocument } from '../domain/model.ts';

export const markImageNameOf = (caseNumber: number): string => `${caseNumber}.gif`;

export const markImageDocument = (caseNumber: number, createdOn: string): CaseDocument => ({
  documentIdentifier: `094f${String(caseNumber).padStart(12, '0')}`,
  documentName: markImageNameOf(caseNumber),
  objectFormat: 'gif',
  createdOn,
});
