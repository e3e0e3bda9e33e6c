// Package bytesize writes sizes of files and downloads for people to
// read, in the units tmem's messages use.
package bytesize
