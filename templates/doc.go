// Package templates embeds the starting files of a workspace and the texts the
// context builder injects; a workspace may override any of them.
package templates
