#!/usr/bin/env python3
# bench/delay_proxy.py: a TCP proxy on loopback that adds latency, to see what a benchmark
# costs over a network rather than loopback. Each chunk is forwarded DELAY_MS late in each
# direction (a request-answer exchange: one round trip of 2 x DELAY_MS), and a new connection
# waits one round trip before it is connected (the TCP handshake; TLS is not emulated).
# Usage: bench/delay_proxy.py LISTEN_PORT TARGET_PORT DELAY_MS
# Then point a clone's members at it, e.g. in .git/skillsync/state.db:
#   UPDATE members SET pds = 'http://127.0.0.1:LISTEN_PORT'
import asyncio, sys, time
listen, target_port, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000
async def pump(r, w):
    q = asyncio.Queue()
    async def rd():
        while True:
            d = await r.read(65536)
            await q.put((time.monotonic() + delay, d))
            if not d: return
    async def wr():
        while True:
            t, d = await q.get()
            now = time.monotonic()
            if t > now: await asyncio.sleep(t - now)
            if not d:
                try: w.write_eof()
                except Exception: pass
                return
            w.write(d); await w.drain()
    await asyncio.gather(rd(), wr())
async def handle(cr, cw):
    await asyncio.sleep(2 * delay)  # the TCP handshake's round trip
    sr, sw = await asyncio.open_connection('127.0.0.1', target_port)
    try: await asyncio.gather(pump(cr, sw), pump(sr, cw))
    except Exception: pass
    finally:
        cw.close(); sw.close()
async def main():
    s = await asyncio.start_server(handle, '127.0.0.1', listen)
    async with s: await s.serve_forever()
asyncio.run(main())
