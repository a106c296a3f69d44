/** One served ACP connection, whichever version answers it. */
export interface AcpConnectionHandle {
  closed: Promise<void>;
  close(): void;
}
