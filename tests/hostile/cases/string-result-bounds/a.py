model = dict(type='X')
# Each would build gigabytes: refused before anything is built, the key left unknown.
tabs = ('\t' * 350).expandtabs(10**7)
fields = f'{1:9999999}{1:9999999}{1:9999999}{1:9999999}{1:9999999}{1:9999999}'
repeated = '{0}{0}{0}{0}{0}{0}{0}{0}{0}{0}{0}{0}'.format('a' * 10**7)
nested = '{:{}}'.format(1, 10**8)
percent = ('%9999999d' * 10) % ((1,) * 10)
pieces = ('ab,' * 3333333).split(',')
listed = str(['\x00' * 10**6] * 60)
# Within bounds: computed as MMEngine would.
fine = 'a\tb'.expandtabs(4) + '|' + '{:>4}'.format(7) + '|%3d' % 5 + f'|{2:03}'
