/** This node no longer holds a row's lease: what it did is rolled back and the new holder's work stands. */
export class LeaseLost extends Error {
  constructor(id: string) {
    super(`the lease on ${id} ran out before its result was written; the node that took it over writes the result`);
    this.name = 'LeaseLost';
  }
}
