// Package quote shows text that came from outside tmem (a path, a name)
// in a message: as it is when every character prints plainly, else
// quoted, so that a NUL byte, a line break or a terminal escape in it can
// neither hide nor forge a part of the message.
package quote
