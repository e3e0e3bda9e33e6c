//go:build !unix

package layout

// oNonblock is not needed where named pipes are not files.
const oNonblock = 0
