/**
 * The msgpackr instance of the wire: it encodes the values column of every
 * frame (one array of the batch's values arrays) and the records of
 * hstorm/testing (wire-codec.ts encodeRecord). Typed arrays (matrices), Sets,
 * Dates and bigints of any size travel as such (`moreTypes`, 64-bit integers
 * as bigints); Maps, -0 and registered classes in their wire form
 * (common/values/wire-form.ts, whose msgpackr extensions this module loads).
 */
import { Packr } from 'msgpackr';
// For its msgpackr extensions (Map, -0, registered classes), which must be in place before any frame is coded.
import '../../common/values/wire-form.js';

export const valuesPackr = new Packr({ useRecords: false, int64AsType: 'bigint', moreTypes: true });
