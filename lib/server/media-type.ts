/** The media type a request's body declares, without its parameters, lowercased; '' when none. */
export function mediaTypeOf(headers: { get(name: string): string | null }): string {
  return (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
