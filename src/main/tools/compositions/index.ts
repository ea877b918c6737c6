/**
 * The compositions family (issue 17): create_composition and publish_composition over the compositions service,
 * create_pdf through the PDF printer, and read_pdf / pdf_page_count through the PDF reader (URLs through the web
 * family's guarded HTTP, passed in by the host).
 */
import type { ToolDefinition } from '../../runtime/tool';
import type { CompositionService, Publisher } from '../../services/compositions/index';
import type { PdfPrinter, PdfReader } from '../../services/pdf/index';
import { createCreateComposition } from './create-composition';
import { createCreatePdf } from './create-pdf';
import { createPublishComposition } from './publish-composition';
import { createPdfPageCount, createReadPdf, type PdfFetch } from './read-pdf';

export type { PdfFetch };

export interface CompositionDeps {
  compositions: CompositionService;
  publisher: Publisher;
  printer: PdfPrinter;
  reader: PdfReader;
  /** How read_pdf reaches URLs (the web family's HTTP and guards), or null: paths only. */
  net: PdfFetch | null;
}

export function createCompositionFamily(deps: CompositionDeps): { tools: ToolDefinition[] } {
  return {
    tools: [
      createCreateComposition(deps.compositions, deps.printer),
      createPublishComposition(deps.compositions, deps.publisher),
      createCreatePdf(deps.printer, deps.compositions),
      createReadPdf(deps.reader, deps.net),
      createPdfPageCount(deps.reader, deps.net),
    ] as unknown as ToolDefinition[],
  };
}
