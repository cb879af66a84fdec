/**
 * The sandbox's trade mark images (ours): each mark's image is a document named `<number>.gif`, the
 * name its `MarkImageName` gives, so the image is found from the record; its bytes are a picture of the
 * mark made on demand (documents/mark-picture.ts). A mark whose random documents hold no image gets one
 * with an identifier made from its number (`094f` and the number), outside the case's random stream.
 */
import type { CaseDocument } from '../domain/model.ts';

/**
 * Whether a generated trade mark has an image (four in ten, by its number, outside its random stream; none of
 * the numbers migration 011 types Colour, Shape or Sound):
 * its type follows (migration 011: Image or Combined with one, Word, Colour, Shape or Sound without).
 */
export const hasMarkImage = (caseNumber: number): boolean => caseNumber % 5 === 0 || caseNumber % 5 === 4;

export const markImageNameOf = (caseNumber: number): string => `${caseNumber}.gif`;

export const markImageDocument = (caseNumber: number, createdOn: string): CaseDocument => ({
  documentIdentifier: `094f${String(caseNumber).padStart(12, '0')}`,
  documentName: markImageNameOf(caseNumber),
  objectFormat: 'gif',
  createdOn,
});
