/** one function or trigger of the PostgreSQL adapter, as it is now */
export interface Definition {
  name: string;
  /** its CREATE statement, with the comments that say why it is as it is */
  sql: string;
}
