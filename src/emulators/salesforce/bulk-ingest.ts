import { randomBytes } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { findField, type SfField, type SfObject } from './salesforce-schema.js';
import { SfRequestError, type RecordStore, type RejectRule } from './record-store.js';

export type JobState = 'Open' | 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';

interface IngestJob {
  id: string;
  object: SfObject;
  operation: 'upsert' | 'insert';
  extField: SfField | undefined;
  state: JobState;
  apiVersion: string;
  createdDate: string;
  csv: string | undefined;
  header: string[];
  rows: string[][];
  processed: number;
  successful: string[][];
  failed: string[][];
  errorMessage: string | undefined;
}

const NULL_CELL = '#N/A';

/**
 * Bulk API 2.0 ingest jobs: open -> one CSV upload -> UploadComplete -> processed in the background
 * (InProgress -> JobComplete) -> results as CSV. Rows go through the same upsert rules as REST.
 */
export class BulkIngest {
  readonly jobs = new Map<string, IngestJob>();

  constructor(
    private readonly store: RecordStore,
    private readonly options: { processingDelayMs: number; rowsPerTick: number; reject: () => RejectRule | undefined },
  ) {}

  create(body: Record<string, unknown>, apiVersion: string): Record<string, unknown> {
    const operation = body.operation;
    if (operation !== 'upsert' && operation !== 'insert') {
      throw new SfRequestError(
        400,
        'INVALIDJOB',
        `InvalidJob : Invalid or unsupported operation: ${String(operation)}`,
      );
    }
    if (typeof body.object !== 'string') throw new SfRequestError(400, 'INVALIDJOB', 'InvalidJob : object is required');
    const object = this.store.object(body.object);
    let extField: SfField | undefined;
    if (operation === 'upsert') {
      if (typeof body.externalIdFieldName !== 'string')
        throw new SfRequestError(400, 'INVALIDJOB', 'InvalidJob : External ID was blank for upsert');
      extField = this.store.externalIdField(object, body.externalIdFieldName);
    }
    if (body.contentType !== undefined && body.contentType !== 'CSV')
      throw new SfRequestError(400, 'INVALIDJOB', 'InvalidJob : contentType must be CSV');
    if (body.columnDelimiter !== undefined && body.columnDelimiter !== 'COMMA')
      throw new SfRequestError(400, 'INVALIDJOB', 'InvalidJob : only COMMA is supported here');
    const id = `750${randomBytes(6).toString('hex').slice(0, 12)}AAA`;
    const job: IngestJob = {
      id,
      object,
      operation,
      extField,
      state: 'Open',
      apiVersion,
      createdDate: new Date().toISOString(),
      csv: undefined,
      header: [],
      rows: [],
      processed: 0,
      successful: [],
      failed: [],
      errorMessage: undefined,
    };
    this.jobs.set(id, job);
    return this.info(job);
  }

  upload(id: string, contentType: string | undefined, csv: string): void {
    const job = this.job(id);
    if (!contentType?.startsWith('text/csv'))
      throw new SfRequestError(400, 'INVALIDBATCH', 'InvalidBatch : Content-Type must be text/csv');
    if (job.state !== 'Open')
      throw new SfRequestError(
        409,
        'INVALIDJOBSTATE',
        `Job is in state ${job.state}, data can be uploaded only to an Open job`,
      );
    if (job.csv !== undefined)
      throw new SfRequestError(409, 'INVALIDJOBSTATE', 'Data was already uploaded to this job; a job takes one upload');
    job.csv = csv;
  }

  changeState(id: string, body: Record<string, unknown>): Record<string, unknown> {
    const job = this.job(id);
    if (body.state === 'Aborted') {
      if (job.state === 'JobComplete' || job.state === 'Failed')
        throw new SfRequestError(409, 'INVALIDJOBSTATE', `Cannot abort a job in state ${job.state}`);
      job.state = 'Aborted';
    } else if (body.state === 'UploadComplete') {
      if (job.state !== 'Open')
        throw new SfRequestError(409, 'INVALIDJOBSTATE', `Cannot close a job in state ${job.state}`);
      job.state = 'UploadComplete';
      setTimeout(() => this.start(job), this.options.processingDelayMs).unref();
    } else {
      throw new SfRequestError(400, 'INVALIDJOBSTATE', `Invalid state: ${String(body.state)}`);
    }
    return this.info(job);
  }

  get(id: string): Record<string, unknown> {
    return this.info(this.job(id));
  }

  delete(id: string): void {
    const job = this.job(id);
    if (job.state === 'Open' || job.state === 'InProgress')
      throw new SfRequestError(409, 'INVALIDJOBSTATE', `Cannot delete a job in state ${job.state}`);
    this.jobs.delete(id);
  }

  results(id: string, kind: 'successfulResults' | 'failedResults' | 'unprocessedrecords'): string {
    const job = this.job(id);
    if (kind === 'successfulResults') return stringify([['sf__Id', 'sf__Created', ...job.header], ...job.successful]);
    if (kind === 'failedResults') return stringify([['sf__Id', 'sf__Error', ...job.header], ...job.failed]);
    const done = job.state === 'JobComplete' ? job.rows.length : job.processed;
    return stringify([job.header, ...job.rows.slice(done)]);
  }

  private start(job: IngestJob): void {
    if (job.state !== 'UploadComplete') return;
    try {
      const table = parse(job.csv ?? '', { relaxColumnCount: false, bom: true }) as string[][];
      const [header, ...rows] = table;
      if (!header || header.length === 0) throw new Error('InvalidBatch : Records not found');
      for (const column of header) this.checkColumn(job, column);
      if (job.extField && !header.some((c) => c.toLowerCase() === job.extField!.name.toLowerCase())) {
        throw new Error(`InvalidBatch : Field name not found : ${job.extField.name}`);
      }
      job.header = header;
      job.rows = rows;
    } catch (err) {
      job.state = 'Failed';
      job.errorMessage = err instanceof Error ? err.message : String(err);
      return;
    }
    job.state = 'InProgress';
    const step = (): void => {
      if (job.state !== 'InProgress') return;
      const end = Math.min(job.rows.length, job.processed + this.options.rowsPerTick);
      for (; job.processed < end; job.processed++) this.processRow(job, job.rows[job.processed]!);
      if (job.processed < job.rows.length) setImmediate(step);
      else job.state = 'JobComplete';
    };
    setImmediate(step);
  }

  private checkColumn(job: IngestJob, column: string): void {
    const [head, sub, extra] = column.split('.');
    if (extra !== undefined) throw new Error(`InvalidBatch : Field name not found : ${column}`);
    if (sub === undefined) {
      if (!findField(job.object, head!)) throw new Error(`InvalidBatch : Field name not found : ${column}`);
      return;
    }
    const rel = job.object.fields.find((f) => f.relationshipName?.toLowerCase() === head!.toLowerCase());
    const parentField = rel ? findField(this.store.object(rel.referenceTo!), sub) : undefined;
    if (!parentField?.externalId) throw new Error(`InvalidBatch : Field name not found : ${column}`);
  }

  private processRow(job: IngestJob, row: string[]): void {
    const input: Record<string, unknown> = {};
    let extValue = '';
    job.header.forEach((column, i) => {
      const cell = row[i] ?? '';
      if (cell === '') return; // an empty cell leaves the field as it is
      const value = cell === NULL_CELL ? null : cell;
      const [head, sub] = column.split('.');
      if (sub !== undefined) input[head!] = { [sub]: value };
      else if (job.extField && head!.toLowerCase() === job.extField.name.toLowerCase()) extValue = cell;
      else input[head!] = value;
    });
    const fail = (code: string, message: string, fields: string[]): void => {
      job.failed.push(['', `${code}:${message}:${fields.join(',')} --`, ...row]);
    };
    if (job.extField && extValue === '') {
      fail('MISSING_ARGUMENT', `${job.extField.name} not specified`, [job.extField.name]);
      return;
    }
    try {
      const extField = job.extField ?? findField(job.object, 'Id')!;
      const result = this.store.upsert(job.object, extField, extValue, input, [], this.options.reject());
      if (result.ok) job.successful.push([result.id, String(result.created), ...row]);
      else fail(result.errors[0]!.statusCode, result.errors[0]!.message, result.errors[0]!.fields);
    } catch (err) {
      if (!(err instanceof SfRequestError)) throw err;
      fail(err.errorCode, err.message, []);
    }
  }

  private job(id: string): IngestJob {
    const job = this.jobs.get(id);
    if (!job) throw new SfRequestError(404, 'NOT_FOUND', `The requested resource does not exist: job ${id}`);
    return job;
  }

  private info(job: IngestJob): Record<string, unknown> {
    return {
      id: job.id,
      operation: job.operation,
      object: job.object.name,
      createdById: '005000000000001AAA',
      createdDate: job.createdDate,
      systemModstamp: new Date().toISOString(),
      state: job.state,
      ...(job.extField ? { externalIdFieldName: job.extField.name } : {}),
      concurrencyMode: 'Parallel',
      contentType: 'CSV',
      apiVersion: Number(job.apiVersion),
      jobType: 'V2Ingest',
      contentUrl: `services/data/v${job.apiVersion}/jobs/ingest/${job.id}/batches`,
      lineEnding: 'LF',
      columnDelimiter: 'COMMA',
      numberRecordsProcessed: job.state === 'JobComplete' ? job.rows.length : job.processed,
      numberRecordsFailed: job.failed.length,
      ...(job.errorMessage ? { errorMessage: job.errorMessage } : {}),
    };
  }
}
