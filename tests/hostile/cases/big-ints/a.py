import math

model = dict(type='X')
x = 10**5000
y = math.factorial(10**5)
z = [10**5000, {'k': -10**4400}]
small = 10**4000
