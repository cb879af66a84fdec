import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invoiceCsv, invoiceTransactionsCsv } from '../../billing/documents/invoice-csv.ts';
import { invoicePdf } from '../../billing/documents/invoice-pdf.ts';
import type { Environment } from '../../services/contract.ts';
import { isEnvironment } from '../domain/values.ts';
import { notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import {
  billingOf,
  decideDirectDebit,
  requestDirectDebit,
  topUpDirectCreditAsOperator,
  visibleInvoice,
  visibleInvoiceTransactions,
} from '../operations/billing.ts';
import { billingPage, invoicePage, invoiceTitle } from '../pages/billing.ts';
import { sendPage } from '../pages/layout.ts';
import { requireOperator, requireUser } from '../session.ts';
import { field, queryValue } from './forms.ts';

/**
 * Billing: a member's organisations with their direct debit authority (request one), direct credit
 * balance and invoices (page, CSV, PDF); the operators' decision on an authority (the queue is on the
 * approvals page) and their direct credit top-up (its form is there too).
 */
type InvoiceRoute = { Params: { environment: string; reference: string } };

/** An environment in an address: anything else is no page at all. */
function environmentParam(value: string): Environment {
  if (!isEnvironment(value)) throw notFound('There is no such page in the portal.');
  return value;
}

function download(reply: FastifyReply, name: string, type: string, body: string | Buffer): FastifyReply {
  return reply.type(type).header('Content-Disposition', `attachment; filename="${name}"`).send(body);
}

export function billingRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  /** The invoice of the address, for a member of its organisation or an operator (else 404). */
  const invoiceOf = async (request: FastifyRequest<InvoiceRoute>) => {
    const user = requireUser(request);
    const environment = environmentParam(request.params.environment);
    return { environment, invoice: await visibleInvoice(deps, user, environment, request.params.reference) };
  };

  scope.get('/billing', async (request, reply) => {
    const user = requireUser(request);
    const page = billingPage(
      request,
      deps,
      await billingOf(deps, user.id),
      queryValue(request.query, 'requested'),
    );
    return sendPage(request, reply, 'Billing', page);
  });

  scope.post('/billing/authorities', async (request, reply) => {
    const user = requireUser(request);
    const state = await requestDirectDebit(deps, user, {
      organisationId: field(request.body, 'organisation', 60),
      accountName: field(request.body, 'accountName', 200),
      accountNumber: field(request.body, 'accountNumber', 60),
    });
    return reply.redirect(`/portal/billing?requested=${state}`, 303);
  });

  scope.get<InvoiceRoute>('/billing/:environment/invoices/:reference', async (request, reply) => {
    const { environment, invoice } = await invoiceOf(request);
    return sendPage(request, reply, invoiceTitle(invoice), invoicePage(environment, invoice));
  });

  scope.get<InvoiceRoute>('/billing/:environment/invoices/:reference/csv', async (request, reply) => {
    const { invoice } = await invoiceOf(request);
    return download(reply, `${invoice.reference}.csv`, 'text/csv; charset=utf-8', invoiceCsv(invoice));
  });

  scope.get<InvoiceRoute>(
    '/billing/:environment/invoices/:reference/transactions-csv',
    async (request, reply) => {
      const { environment, invoice } = await invoiceOf(request);
      const transactions = await visibleInvoiceTransactions(deps, environment, invoice);
      return download(
        reply,
        `${invoice.reference}-transactions.csv`,
        'text/csv; charset=utf-8',
        invoiceTransactionsCsv(invoice, transactions),
      );
    },
  );

  scope.get<InvoiceRoute>('/billing/:environment/invoices/:reference/pdf', async (request, reply) => {
    const { invoice } = await invoiceOf(request);
    return download(reply, `${invoice.reference}.pdf`, 'application/pdf', await invoicePdf(invoice));
  });

  scope.post('/operator/direct-credit', async (request, reply) => {
    const operator = requireOperator(request);
    const balance = await topUpDirectCreditAsOperator(deps, operator, {
      environment: field(request.body, 'environment', 20),
      organisation: field(request.body, 'organisation', 200),
      amount: field(request.body, 'amount', 30),
      note: field(request.body, 'note', 500),
    });
    return reply.redirect(`/portal/operator/approvals?credit=${balance}#direct-credit`, 303);
  });

  scope.post<{ Params: { environment: string; id: string } }>(
    '/operator/authorities/:environment/:id',
    async (request, reply) => {
      const operator = requireOperator(request);
      const environment = environmentParam(request.params.environment);
      const state = await decideDirectDebit(deps, operator, environment, request.params.id, {
        decision: field(request.body, 'decision', 20),
        note: field(request.body, 'note', 500).trim(),
      });
      return reply.redirect(`/portal/operator/approvals?authority=${state}`, 303);
    },
  );
}
